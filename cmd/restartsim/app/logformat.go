package app

import (
	"fmt"
	"math"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// Log formats of --log-format, shared by every verb.
const (
	logFormatConsole = "console" // for people: no caller, short times, rounded numbers
	logFormatJSON    = "json"    // for machines: zap's production encoding, full precision
)

// logFormatFlag is the --log-format value; it rejects unknown formats when the flag is parsed.
type logFormatFlag string

func (f *logFormatFlag) String() string { return string(*f) }
func (f *logFormatFlag) Type() string   { return "format" }
func (f *logFormatFlag) Set(v string) error {
	if v != logFormatConsole && v != logFormatJSON {
		return fmt.Errorf("want %s or %s", logFormatConsole, logFormatJSON)
	}
	*f = logFormatFlag(v)
	return nil
}

// logFormat is set by the root command's --log-format.
var logFormat = logFormatFlag(logFormatConsole)

func addLogFormatFlag(fs *pflag.FlagSet) {
	fs.Var(&logFormat, "log-format", "log format on stderr: console (for people) or json")
}

// runLogConfig is the zap configuration of the chosen format at level, writing to stderr.
func runLogConfig(level zapcore.Level) zap.Config {
	zc := zap.NewProductionConfig()
	zc.Sampling = nil
	if logFormat == logFormatConsole {
		zc = zap.NewDevelopmentConfig()
		zc.DisableCaller, zc.DisableStacktrace = true, true
		zc.EncoderConfig.EncodeTime = zapcore.TimeEncoderOfLayout("15:04:05.000")
		zc.EncoderConfig.EncodeDuration = func(d time.Duration, enc zapcore.PrimitiveArrayEncoder) {
			enc.AppendString(roundDuration(d).String())
		}
	}
	zc.Level = zap.NewAtomicLevelAt(level)
	zc.OutputPaths, zc.ErrorOutputPaths = []string{"stderr"}, []string{"stderr"}
	return zc
}

// buildRunLog builds zc; console logs round their numbers.
func buildRunLog(zc zap.Config) (*zap.Logger, error) {
	if logFormat != logFormatConsole {
		return zc.Build()
	}
	return zc.Build(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return roundingCore{c} }))
}

// roundingCore rounds float fields to three significant digits (integer digits are kept) and
// durations to milliseconds, so a console line reads "224", not "223.98976207313532".
type roundingCore struct{ zapcore.Core }

func (c roundingCore) With(fs []zapcore.Field) zapcore.Core {
	return roundingCore{c.Core.With(roundFields(fs))}
}

func (c roundingCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c roundingCore) Write(e zapcore.Entry, fs []zapcore.Field) error {
	return c.Core.Write(e, roundFields(fs))
}

func roundFields(fs []zapcore.Field) []zapcore.Field {
	out := make([]zapcore.Field, len(fs))
	for i, f := range fs {
		switch f.Type {
		case zapcore.Float64Type:
			f = zap.Float64(f.Key, roundFloat(math.Float64frombits(uint64(f.Integer))))
		case zapcore.DurationType:
			f = zap.Duration(f.Key, roundDuration(time.Duration(f.Integer)))
		}
		out[i] = f
	}
	return out
}

func roundFloat(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	digits := max(0, 2-int(math.Floor(math.Log10(math.Abs(v)))))
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d
}

package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
)

func TestRoundFloatKeepsIntegerDigits(t *testing.T) {
	for in, want := range map[float64]float64{223.98976207313532: 224, 3.5184: 3.52, 0.012345: 0.0123, 12345.6: 12346, -1.23456: -1.23} {
		if got := roundFloat(in); got != want {
			t.Errorf("roundFloat(%v) = %v, want %v", in, got, want)
		}
	}
}

// The console format has no caller and rounds numbers; the JSON format keeps them exact.
func TestConsoleLogIsForPeople(t *testing.T) {
	line := func(format string) string {
		t.Helper()
		logFormat = logFormatFlag(format)
		defer func() { logFormat = logFormatConsole }()
		path := filepath.Join(t.TempDir(), "log")
		zc := runLogConfig(zap.InfoLevel)
		zc.OutputPaths = []string{path}
		zl, err := buildRunLog(zc)
		if err != nil {
			t.Fatal(err)
		}
		zl.Info("fleet created", zap.Float64("writesPerSecond", 223.98976207313532), zap.Duration("elapsed", 8094119942*time.Nanosecond))
		_ = zl.Sync()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	console := line(logFormatConsole)
	for _, want := range []string{`"writesPerSecond": 224`, `"elapsed": "8.094s"`, "fleet created"} {
		if !strings.Contains(console, want) {
			t.Errorf("console line %q lacks %q", console, want)
		}
	}
	if strings.Contains(console, ".go:") {
		t.Errorf("console line %q names its caller", console)
	}
	if js := line(logFormatJSON); !strings.Contains(js, `"writesPerSecond":223.98976207313532`) || !strings.HasPrefix(js, "{") {
		t.Errorf("json line %q", js)
	}
}

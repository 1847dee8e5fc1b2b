package app

import (
	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// newRunLogger builds the stderr logger of a simulation run: info and up at verbosity 0, plus
// V(n) lines at verbosity n. controller-runtime's own logs are shown only when verbose, since the
// in-process controllers are otherwise noisy next to the progress output.
func newRunLogger(verbose int) (logr.Logger, func(), error) {
	level := zapcore.InfoLevel
	if verbose > 0 {
		level = zapcore.Level(-verbose)
	}
	zl, err := buildRunLog(runLogConfig(level))
	if err != nil {
		return logr.Logger{}, nil, err
	}
	log := zapr.NewLogger(zl)
	// client-go logs through klog: its retries ("failed to get server groups") would repeat an
	// error the run reports once.
	if verbose > 0 {
		ctrllog.SetLogger(log.WithName("controller-runtime"))
		klog.SetLogger(log.WithName("client-go"))
	} else {
		ctrllog.SetLogger(logr.Discard())
		klog.SetLogger(logr.Discard())
	}
	return log, func() { _ = zl.Sync() }, nil
}

package resume

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Progress tells when the controller's work queue has worked off what was added to it.
type Progress interface {
	// Mark returns a barrier: every addition so far is before it.
	Mark() uint64
	// Passed reports whether every addition before barrier has been reconciled.
	Passed(barrier uint64) bool
}

// WriterConfig configures a Writer.
type WriterConfig struct {
	Progress Progress
	// Reader reads from the API server (the current resource version); Writer writes the ConfigMap.
	Reader client.Reader
	Writer client.Writer
	// Namespace and LeaderElectionID name the watermark's ConfigMap (WatermarkName).
	Namespace, LeaderElectionID string
	// Interval is how often the watermark advances.
	Interval time.Duration
	Clock    clock.WithTicker
	Log      logr.Logger
}

// Writer advances the watermark once per Interval, in a pipeline of three ticks: sample the
// current resource version R (a consistent list with limit 1); one interval later, when the
// informers have delivered the events up to R to the handlers, take a progress barrier; once
// every request added before the barrier has been reconciled, write R. It is a manager runnable.
type Writer struct {
	cfg     WriterConfig
	sampled string // R of the previous tick
	waiting string // R waiting for barrier
	barrier uint64
	written string
}

// NewWriter builds the watermark writer; the caller adds it to the manager.
func NewWriter(cfg WriterConfig) *Writer { return &Writer{cfg: cfg} }

// Start runs until ctx ends; it needs leadership (only the leader's reconciles count).
func (w *Writer) Start(ctx context.Context) error {
	t := w.cfg.Clock.NewTicker(w.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
		}
		if err := w.tick(ctx); err != nil && ctx.Err() == nil {
			w.cfg.Log.V(1).Info("resume watermark", "error", err.Error())
		}
	}
}

func (w *Writer) tick(ctx context.Context) error {
	if w.waiting != "" && w.cfg.Progress.Passed(w.barrier) {
		if w.waiting != w.written {
			if err := w.write(ctx, w.waiting); err != nil {
				return err
			}
			w.written = w.waiting
		}
		w.waiting = ""
	}
	if w.waiting == "" && w.sampled != "" {
		w.waiting, w.barrier = w.sampled, w.cfg.Progress.Mark()
	}
	rv, err := CurrentResourceVersion(ctx, w.cfg.Reader, w.cfg.Namespace)
	if err != nil {
		return err
	}
	w.sampled = rv
	return nil
}

func (w *Writer) write(ctx context.Context, rv string) error {
	wm := Watermark{ResourceVersion: rv, RecordedAt: w.cfg.Clock.Now()}
	if err := WriteWatermark(ctx, w.cfg.Writer, w.cfg.Namespace, w.cfg.LeaderElectionID, wm); err != nil {
		return err
	}
	w.cfg.Log.V(1).Info("resume watermark advanced", "resourceVersion", rv)
	return nil
}

// NeedLeaderElection: only the leader reconciles, so only its progress means anything.
func (w *Writer) NeedLeaderElection() bool { return true }

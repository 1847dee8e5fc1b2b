package controller

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/internal/resume"
)

// The resume watermark (Options.Resume). A restarted controller normally lists every binding,
// Service, EndpointSlice, Pod and Node before its first reconcile, so a change made around the
// restart waits for a time linear in the fleet. The watermark is a resource version W such that
// every event of those kinds up to W had been reconciled by the instance that wrote it; a new
// instance watches from W and reconciles only what changed after it, with live reads, while its
// caches sync (internal/resume).
//
// Correctness never depends on the watermark: after its caches sync, the new instance reconciles
// every binding as before (early exits where checkpoints match). A watermark that is too new only
// leaves a change to that normal path; one that is too old (compacted, or older than the API
// server's watch history) makes the fast path give up.

// Watermark is the content of the resume ConfigMap.
type Watermark = resume.Watermark

// WatermarkName is the ConfigMap holding the resume watermark of a controller with this leader
// election ID.
func WatermarkName(leaderElectionID string) string { return resume.WatermarkName(leaderElectionID) }

// ReadWatermark reads a controller's resume watermark; ok is false when none was recorded.
func ReadWatermark(ctx context.Context, r client.Reader, namespace, leaderElectionID string) (w Watermark, ok bool, err error) {
	return resume.ReadWatermark(ctx, r, namespace, leaderElectionID)
}

// CurrentResourceVersion is the API server's current resource version: that of a consistent
// list (limit 1) of the namespace's ConfigMaps.
func CurrentResourceVersion(ctx context.Context, r client.Reader, namespace string) (string, error) {
	return resume.CurrentResourceVersion(ctx, r, namespace)
}

// watermarkWriter advances the watermark once per ResumeInterval, in a pipeline of three ticks:
// sample the current resource version R (a consistent list with limit 1); one interval later,
// when the informers have delivered the events up to R to the handlers, take a progress barrier;
// once every request added before the barrier has been reconciled, write R.
type watermarkWriter struct {
	c       *Controller
	reader  client.Reader // live
	sampled string        // R of the previous tick
	waiting string        // R waiting for barrier
	barrier uint64
	written string
}

// Start runs until ctx ends; it needs leadership (only the leader's reconciles count).
func (w *watermarkWriter) Start(ctx context.Context) error {
	t := w.c.opts.Clock.NewTicker(w.c.opts.ResumeInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C():
		}
		if err := w.tick(ctx); err != nil && ctx.Err() == nil {
			w.c.log.V(1).Info("resume watermark", "error", err.Error())
		}
	}
}

func (w *watermarkWriter) tick(ctx context.Context) error {
	if w.waiting != "" && w.c.progress.passed(w.barrier) {
		if w.waiting != w.written {
			if err := w.write(ctx, w.waiting); err != nil {
				return err
			}
			w.written = w.waiting
		}
		w.waiting = ""
	}
	if w.waiting == "" && w.sampled != "" {
		w.waiting, w.barrier = w.sampled, w.c.progress.mark()
	}
	rv, err := CurrentResourceVersion(ctx, w.reader, w.c.opts.ResumeNamespace)
	if err != nil {
		return err
	}
	w.sampled = rv
	return nil
}

func (w *watermarkWriter) write(ctx context.Context, rv string) error {
	wm := Watermark{ResourceVersion: rv, RecordedAt: w.c.opts.Clock.Now()}
	if err := writeWatermark(ctx, w.c.client, w.c.opts.ResumeNamespace, w.c.opts.LeaderElectionID, wm); err != nil {
		return err
	}
	w.c.log.V(1).Info("resume watermark advanced", "resourceVersion", rv)
	return nil
}

// writeWatermark stores w in the ConfigMap ReadWatermark reads, creating it if needed.
func writeWatermark(ctx context.Context, c client.Writer, namespace, leaderElectionID string, w Watermark) error {
	return resume.WriteWatermark(ctx, c, namespace, leaderElectionID, w)
}

// NeedLeaderElection: only the leader reconciles, so only its progress means anything.
func (w *watermarkWriter) NeedLeaderElection() bool { return true }

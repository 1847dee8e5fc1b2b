package controller

import (
	"context"
	"fmt"

	"sigs.k8s.io/controller-runtime/pkg/client"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

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

// writeWatermark stores w in the ConfigMap ReadWatermark reads, creating it if needed.
func writeWatermark(ctx context.Context, c client.Writer, namespace, leaderElectionID string, w Watermark) error {
	return resume.WriteWatermark(ctx, c, namespace, leaderElectionID, w)
}

// setupResume adds the resume watermark writer and fast path (Options.Resume) to mgr.
func (c *Controller) setupResume(mgr manager.Manager, ctrlOpts *crcontroller.Options) error {
	if !c.opts.Resume {
		close(c.resumeDone)
		return nil
	}
	c.progress = newProgress()
	ctrlOpts.NewQueue = newProgressQueue(c.progress, c.opts.PriorityQueue)
	if err := mgr.Add(resume.NewWriter(resume.WriterConfig{
		Progress: c.progress, Reader: c.apiReader, Writer: c.client,
		Namespace: c.opts.ResumeNamespace, LeaderElectionID: c.opts.LeaderElectionID,
		Interval: c.opts.ResumeInterval, Clock: c.opts.Clock, Log: c.log,
	})); err != nil {
		return err
	}
	if c.opts.LeaderElection {
		// A standby replica keeps its caches warm, so a handover needs no fast path; and a
		// replica may not act before it leads, which controller-runtime grants after the sync.
		close(c.resumeDone)
		return nil
	}
	watcher, err := client.NewWithWatch(mgr.GetConfig(), client.Options{
		Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper(), HTTPClient: mgr.GetHTTPClient(),
	})
	if err != nil {
		return fmt.Errorf("resume: watch client: %w", err)
	}
	return mgr.Add(c.withSlowStart(resume.New(resume.Config{
		Reconciler: fastPathReconciler{c},
		Cache:      mgr.GetCache(),
		// Held only when ManagerOptions installed the hold on this manager's cache.
		Held:               resume.HeldCacheOf(mgr.GetCache()),
		Reader:             c.apiReader,
		Watcher:            watcher,
		Namespaces:         c.opts.Namespaces,
		Workers:            c.opts.MaxConcurrentReconciles,
		Finalizer:          FinalizerName,
		WatermarkNamespace: c.opts.ResumeNamespace,
		LeaderElectionID:   c.opts.LeaderElectionID,
		MaxWatermarkAge:    maxWatermarkAge * c.opts.ResumeInterval,
		Clock:              c.opts.Clock,
		Log:                c.log,
		Done:               c.resumeDone,
	})))
}

// maxWatermarkAge, in ResumeIntervals (5 min by default), bounds the downtime the fast path
// replays.
const maxWatermarkAge = 30

package sut

import (
	"context"
	"time"

	"github.com/restartsim/restartsim/results"
)

// Controllers is the controller under test: in-process replicas of the reference controller, or
// external processes. Every method the run needs is here, so the run never asks which one it has.
type Controllers interface {
	// Start starts every replica and returns once one of them leads.
	Start(ctx context.Context) error
	// AwaitSettled waits, once AWS holds the converged fleet, until the leader has nothing left of
	// its start-up work (an external controller's caches synced and queue drained; in-process
	// replicas settle with the fleet).
	AwaitSettled(ctx context.Context, timeout time.Duration) error
	// StopLeader stops the leader (crash: no graceful shutdown; graceful/leaderHandover: graceful)
	// and returns when it stopped.
	StopLeader(ctx context.Context, mode string) (time.Time, error)
	// StartReplacement starts an instance in place of the one StopLeader stopped, without waiting
	// for a new leader: it returns when the replacement was started, and leads, which waits until
	// an instance other than the stopped one leads and returns when.
	StartReplacement(ctx context.Context) (started time.Time, leads func(context.Context) (time.Time, error), err error)
	// Stop stops every replica gracefully.
	Stop()
	// QueueDepth samples the leader's queue depths by series name (nil when unavailable).
	QueueDepth() map[string]float64
	// ElectsLeader reports whether a replacement must acquire a Lease before it leads.
	ElectsLeader() bool
	// Exited is closed once an instance ended without the harness stopping it (never, for
	// in-process replicas); ExitErr, a *runerr.ControllerExitError, says which.
	Exited() <-chan struct{}
	ExitErr() error
	// Observed is what the instances themselves showed so far.
	Observed() Observations
	WorkScraper
	MemoryScraper
}

// Observations are what the run learns from the controller instances, not from the cluster or AWS.
type Observations struct {
	// CachesSynced is when each instance that got so far synced its caches.
	CachesSynced []time.Time
	// AtStops is, per restart, every instance that ran just before the stop (external processes).
	AtStops [][]results.InstanceAtStop
	// TakeoverCPU is the CPU time of the instance that took over after the first restart, from
	// its start (external processes).
	TakeoverCPU []CPUPoint
	// ResumeReconciles counts the resume fast path's reconciles over every in-process replica.
	ResumeReconciles float64
	// Takeover is the instance that took over after the first restart (nil: none yet), and Work
	// where ScrapeWork reads its reconcile work.
	Takeover *Takeover
	Work     WorkSource
}

// CPUPoint is a process's CPU time (seconds) at a moment.
type CPUPoint struct {
	At      time.Time
	Seconds float64
}

package controller

import (
	"time"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/restartsim/restartsim/controller/internal/resume"
)

// ManagerOptions returns base with the settings a strategy needs applied: the controller queue
// (priority queue on or off; name validation off so many managers may live in one process), the
// informer sync period, the cache transform that trims objects (cacheTransform) and the memoising
// RESTMapper (memoMapper) unless base sets its own, the held cache start of the resume fast
// path (resume.HoldCache), leader election (Lease), metrics and health bind addresses, and the cached
// namespaces. Fields of base it does not own (Scheme, Logger, ...) are kept.
func ManagerOptions(opts Options, base manager.Options) manager.Options {
	o := opts.setDefaults()
	base.Controller.UsePriorityQueue = ptr.To(o.PriorityQueue)
	base.Controller.SkipNameValidation = ptr.To(true)
	base.Cache.SyncPeriod = ptr.To(o.SyncPeriod)
	if !o.legacyStartup {
		if base.Cache.DefaultTransform == nil {
			base.Cache.DefaultTransform = cacheTransform
		}
		if base.MapperProvider == nil {
			base.MapperProvider = newMemoMapper
		}
	}
	if len(o.Namespaces) > 0 {
		base.Cache.DefaultNamespaces = map[string]cache.Config{}
		for _, ns := range o.Namespaces {
			base.Cache.DefaultNamespaces[ns] = cache.Config{}
		}
	}
	if o.Resume && !o.LeaderElection {
		// The resume fast path replays the downtime's changes before the informers start.
		newCache := base.NewCache
		if newCache == nil {
			newCache = cache.New
		}
		base.NewCache = resume.HoldCache(newCache)
	}
	base.LeaderElection = o.LeaderElection
	base.LeaderElectionID = o.LeaderElectionID
	base.LeaderElectionNamespace = o.LeaderElectionNamespace
	base.LeaderElectionResourceLock = "leases"
	base.LeaderElectionReleaseOnCancel = !o.KeepLeaseOnStop
	for _, d := range []struct {
		to  **time.Duration
		val time.Duration
	}{{&base.LeaseDuration, o.LeaseDuration}, {&base.RenewDeadline, o.RenewDeadline}, {&base.RetryPeriod, o.RetryPeriod}} {
		if d.val > 0 {
			*d.to = ptr.To(d.val)
		}
	}
	if o.Warmup {
		base.Controller.EnableWarmup = ptr.To(true)
	}
	base.Metrics = metricsserver.Options{BindAddress: o.MetricsBindAddress}
	base.HealthProbeBindAddress = o.HealthProbeBindAddress
	return base
}

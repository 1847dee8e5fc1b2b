package sut

import (
	"math/rand/v2"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/sim/scenario"
)

func (p *inProcess) scaled(d *scenario.Duration) time.Duration {
	if d == nil {
		return 0
	}
	return time.Duration(float64(d.Duration) / p.scale)
}

// options maps the strategy onto controller.Options, every duration divided by the time scale.
func (p *inProcess) options(id int, awsEndpoint string, reg prometheus.Registerer) (controller.Options, error) {
	st := p.strategy
	thr, err := scaleThrottle(st.Throttle, p.scale)
	if err != nil {
		return controller.Options{}, err
	}
	def := func(d *scenario.Duration, fallback time.Duration) time.Duration {
		if d == nil {
			return time.Duration(float64(fallback) / p.scale)
		}
		if d.Duration == 0 {
			return 0
		}
		return max(time.Millisecond, p.scaled(d))
	}
	// Unset lease timings stay controller-runtime's, in wall time.
	lease := func(d *scenario.Duration) time.Duration {
		if d == nil {
			return 0
		}
		return max(time.Millisecond, p.scaled(d))
	}
	jitter := def(st.DeferralJitter, controller.DefaultDeferralJitter)
	if st.DeferralJitter != nil && st.DeferralJitter.Duration == 0 {
		jitter = -1 // no jitter
	}
	// The drift check interval is scaled like every other duration (unset: the controller's
	// default in scenario time; 0: off).
	drift := def(st.DriftCheckInterval, controller.DefaultDriftCheckInterval)
	if st.DriftCheckInterval != nil && st.DriftCheckInterval.Duration == 0 {
		drift = -1
	}
	workers := p.workers()
	seed := p.seed + uint64(id)*7919
	o := controller.Options{
		Checkpoint:               controller.CheckpointMode(st.Checkpoint),
		PriorityQueue:            ptr.Deref(st.PriorityQueue, false),
		LowPriorityInitialEvents: ptr.Deref(st.LowPriorityInitialEvents, false),
		DeferralDelay:            def(st.DeferralDelay, controller.DefaultDeferralDelay),
		DeferralJitter:           jitter,
		RequeueDuration:          def(st.RequeueDuration, controller.DefaultRequeueDuration),
		TargetHealthCacheTTL:     def(st.TargetHealthCacheTTL, controller.DefaultTargetHealthCacheTTL),
		SecurityGroupCacheTTL:    def(st.SecurityGroupCacheTTL, controller.DefaultSecurityGroupCacheTTL),
		SyncPeriod:               def(st.SyncPeriod, controller.DefaultSyncPeriod),
		MaxConcurrentReconciles:  workers,
		DriftCheckInterval:       drift,
		Resume:                   ptr.Deref(st.Resume, false),
		ResumeInterval:           def(st.ResumeInterval, controller.DefaultResumeInterval),
		VpcID:                    p.vpcID,
		LoadBalancers:            p.loadBalancers,
		ModelCheckpoint:          controller.ModelCheckpointMode(st.ModelCheckpoint),
		AWS: controller.AWSOptions{
			Region: p.creds.Region, Endpoint: awsEndpoint, AccessKeyID: p.creds.AccessKey, SecretAccessKey: p.creds.SecretKey,
			MaxAttempts: st.MaxAttempts, Throttle: thr,
		},
		LeaderElection:          p.ElectsLeader(),
		LeaderElectionNamespace: p.leaseNS,
		LeaseDuration:           lease(st.LeaseDuration),
		RenewDeadline:           lease(st.RenewDeadline),
		RetryPeriod:             lease(st.RetryPeriod),
		KeepLeaseOnStop:         !ptr.Deref(st.ReleaseOnCancel, true),
		Warmup:                  ptr.Deref(st.Warmup, false),
		Namespaces:              p.namespaces,
		Rand:                    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		Logger:                  p.log.WithValues("replica", id),
		MetricsRegistry:         reg,
		Mutant:                  st.Mutant,
		AllowMutants:            st.Mutant != "", // the scenario asked for it explicitly
		MutantDelay:             def(st.MutantDelay, controller.DefaultMutantDelay(st.Mutant)),
	}
	if p.loadBalancers {
		// The stacks' cluster tag; without load balancers the TGB controller keeps running without a
		// cluster name, as it always has.
		o.ClusterName = p.clusterName
	}
	return o, nil
}

// workers is the strategy's worker count, or controller.warmupWorkers until the first restart.
func (p *inProcess) workers() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.warmupWorkers > 0 && !p.restarted {
		return p.warmupWorkers
	}
	return p.strategy.MaxConcurrentReconciles
}

package controller

import (
	"fmt"
	"strings"
	"time"
)

// Knobs are the reference controller's strategy settings, in the order the scenario's strategy
// lists them. Adding one here adds its Options default, flag, scenario field (go generate
// ./sim/scenario), checks and out-of-process argument; what a knob means beyond that (the
// scenario's scaling, cross-field rules) stays with the code that uses it.
var Knobs = []Knob{
	{Field: "checkpoint", Flag: "checkpoint", Always: true,
		opt:    of(func(o *Options) *string { return (*string)(&o.Checkpoint) }, string(CheckpointAnnotation)),
		Values: []string{string(CheckpointAnnotation), string(CheckpointCompact), string(CheckpointNone)},
		Usage:  "Startup strategy: none, annotation or compact",
		Doc: `Checkpoint is none, annotation (default) or compact: how a binding records that AWS already
matches it, so the reconcile after a restart can exit early without AWS calls.`},
	{Field: "modelCheckpoint", Flag: "model-checkpoint", When: func(o Options) bool { return o.LoadBalancers },
		opt:    of(func(o *Options) *string { return (*string)(&o.ModelCheckpoint) }, string(ModelCheckpointNone)),
		Values: []string{string(ModelCheckpointNone), string(ModelCheckpointModel)},
		Usage:  "Restart strategy of the load balancer reconcilers: none or model (skip objects whose stored model checkpoint matches)",
		Doc: `ModelCheckpoint is none (default) or model: whether the load balancer reconcilers (which run
when the fleet has Ingresses or Services of type LoadBalancer) save the SHA-256 of each Ingress
group's or Service's ELBv2 model and its inputs, and skip an unchanged one after a restart.`},
	// The binary defaults to the priority queue like upstream's; the library cannot (a bool has no unset state).
	{Field: "priorityQueue", Flag: "priority-queue", Always: true, FlagDefault: true,
		opt:   of(func(o *Options) *bool { return &o.PriorityQueue }, false),
		Usage: "Use controller-runtime's priority queue",
		Doc:   `PriorityQueue uses controller-runtime's priority queue. Default false.`},
	{Field: "lowPriorityInitialEvents", Flag: "low-priority-initial-events", Always: true,
		opt:   of(func(o *Options) *bool { return &o.LowPriorityInitialEvents }, false),
		Usage: "Enqueue initial-list events of the controller's own Service/EndpointSlice/Pod/Node handlers at low priority",
		Doc: `LowPriorityInitialEvents enqueues the initial list's events at low priority (needs
priorityQueue). Default false.`},
	{Field: "deferralDelay", Flag: "deferral-delay", Always: true,
		opt:   of(func(o *Options) *time.Duration { return &o.DeferralDelay }, DefaultDeferralDelay),
		Usage: "Delay of the forced full reconcile after a checkpoint early exit",
		Doc:   `DeferralDelay is when a binding that exited early is reconciled in full after all. Default 30m.`},
	{Field: "deferralJitter", Flag: "deferral-jitter", Always: true, Off: true,
		opt:   of(func(o *Options) *time.Duration { return &o.DeferralJitter }, DefaultDeferralJitter),
		Usage: "Uniform jitter added to --deferral-delay",
		Doc:   `DeferralJitter spreads those full reconciles uniformly over this much more. Default 15m.`},
	{Field: "requeueDuration", Flag: "targetgroupbinding-requeue-duration", Always: true,
		opt:   of(func(o *Options) *time.Duration { return &o.RequeueDuration }, DefaultRequeueDuration),
		Usage: "Requeue while a gated target is not healthy",
		Doc:   `RequeueDuration is the requeue while a gated target is not healthy yet. Default 15s.`},
	{Field: "targetHealthCacheTTL", Flag: "target-health-cache-ttl", Always: true,
		opt:   of(func(o *Options) *time.Duration { return &o.TargetHealthCacheTTL }, DefaultTargetHealthCacheTTL),
		Usage: "DescribeTargetHealth cache TTL",
		Doc:   `TargetHealthCacheTTL caches DescribeTargetHealth answers. Default 5m.`},
	{Field: "securityGroupCacheTTL", Flag: "security-group-cache-ttl", Always: true,
		opt:   of(func(o *Options) *time.Duration { return &o.SecurityGroupCacheTTL }, DefaultSecurityGroupCacheTTL),
		Usage: "ENI, security group and VPC cache TTL",
		Doc:   `SecurityGroupCacheTTL caches ENI, security group and VPC lookups. Default 10m.`},
	{Field: "syncPeriod", Flag: "sync-period", Always: true,
		opt:   of(func(o *Options) *time.Duration { return &o.SyncPeriod }, DefaultSyncPeriod),
		Usage: "Informer resync period and TTL of the deferred processed set",
		Doc:   `SyncPeriod is the informers' resync period. Default 10h.`},
	{Field: "driftCheckInterval", Flag: "drift-check-interval", Always: true, Off: true,
		opt:   of(func(o *Options) *time.Duration { return &o.DriftCheckInterval }, DefaultDriftCheckInterval),
		Usage: "Describe-only drift check of bindings whose checkpoint matches (plus up to half as much jitter); negative disables",
		Doc: `DriftCheckInterval is how often a binding whose checkpoint matches is checked for out-of-band
drift (Describe calls only). Default: the controller's (5m); 0 turns the checks off.`},
	{Field: "resume", Flag: "resume",
		opt:   of(func(o *Options) *bool { return &o.Resume }, false),
		Usage: "Restart fast path: record a resume watermark while running; after a restart, reconcile the bindings changed since it with live reads before the caches sync",
		Doc: `Resume turns on the controller's restart fast path: it records a resume watermark while it runs
and, after a restart, reconciles what changed since then before its caches have synced.
ResumeInterval is how often the watermark advances (default: the controller's, 10s).`},
	{Field: "resumeInterval", Flag: "resume-interval", When: func(o Options) bool { return o.Resume },
		opt:   of(func(o *Options) *time.Duration { return &o.ResumeInterval }, DefaultResumeInterval),
		Usage: "How often the resume watermark advances"},
	{Field: "leaderElection", Flag: "leader-elect",
		opt:   of(func(o *Options) *bool { return &o.LeaderElection }, false),
		Usage: "Enable Lease-based leader election",
		Doc: `LeaderElection turns the replicas' Lease-based leader election on or off. Default: on when
controller.replicas > 1 or the strategy is inProcess. With one replica it makes a restarted instance wait for the crashed
one's Lease, as a production deployment with leader election does.`},
	{Field: "leaseDuration", Flag: "leader-elect-lease-duration", LeaderElection: true,
		opt:   of(func(o *Options) *time.Duration { return &o.LeaseDuration }, 0),
		Usage: "How long a crashed leader's Lease keeps a standby waiting (default: controller-runtime's 15s)",
		Doc: `LeaseDuration, RenewDeadline and RetryPeriod time the leader election, in scenario time like
every duration. Default: controller-runtime's 15s, 10s and 2s (an out-of-process binary keeps
them in wall time, hence timeScale 1 there).`},
	{Field: "renewDeadline", Flag: "leader-elect-renew-deadline", LeaderElection: true,
		opt:   of(func(o *Options) *time.Duration { return &o.RenewDeadline }, 0),
		Usage: "How long a leader retries renewing its Lease before it stops leading (default: controller-runtime's 10s)"},
	{Field: "retryPeriod", Flag: "leader-elect-retry-period", LeaderElection: true,
		opt:   of(func(o *Options) *time.Duration { return &o.RetryPeriod }, 0),
		Usage: "How often candidates try to take the Lease (default: controller-runtime's 2s)"},
	{Field: "releaseOnCancel", Flag: "leader-elect-keep-lease-on-stop", LeaderElection: true, Negated: true,
		opt:   of(func(o *Options) *bool { return &o.KeepLeaseOnStop }, false),
		Usage: "A stopping leader keeps its Lease until it expires instead of releasing it",
		Doc: `ReleaseOnCancel: a leader that stops gracefully releases its Lease at once, so its successor
need not wait for it to expire. Default true.`},
	{Field: "warmup", Flag: "warmup", LeaderElection: true,
		opt:   of(func(o *Options) *bool { return &o.Warmup }, false),
		Usage: "Start the informers while standing by, before leading (controller-runtime's EnableWarmup)",
		Doc: `Warmup starts a standby's informers before it leads (controller-runtime's EnableWarmup): a
warm standby. Default false.`},
	{Field: "maxConcurrentReconciles", Flag: "max-concurrent-reconciles", Min: 1, Max: 1000,
		opt:   of(func(o *Options) *int { return &o.MaxConcurrentReconciles }, DefaultMaxConcurrentReconciles),
		Usage: "Reconcile workers",
		Doc:   `MaxConcurrentReconciles is the number of reconcile workers. Default 3.`},
	{Field: "throttle", Flag: "aws-api-throttle", Always: true,
		opt:   of(func(o *Options) *string { return &o.AWS.Throttle }, ""),
		Usage: "Client-side throttle serviceID:operationRegex=rate:burst,... (merged per service over the upstream defaults)",
		Doc:   `Throttle is the client-side throttle config, "serviceID:operationRegex=rate:burst,...".`},
	{Field: "maxAttempts", Flag: "aws-max-retries", Min: 1, Max: 100,
		opt:   of(func(o *Options) *int { return &o.AWS.MaxAttempts }, DefaultMaxAttempts),
		Usage: "Max attempts of the standard retryer",
		Doc:   `MaxAttempts is the SDK retryer's attempt limit (default: the controller's).`},
	{Field: "mutant", Flag: "mutant",
		opt:   of(func(o *Options) *string { return &o.Mutant }, ""),
		Usage: "Test only: inject a known bug (" + strings.Join(KnownMutants(), ", ") + "); needs --allow-mutants or a -tags mutants build",
		Doc:   `Mutant re-introduces a known upstream bug (test only).`},
	// Its default depends on the mutant (DefaultMutantDelay), so the field's zero stands for it.
	{Field: "mutantDelay", Flag: "mutant-delay",
		opt: of(func(o *Options) *time.Duration { return &o.MutantDelay }, 0),
		Usage: fmt.Sprintf("Test only: the wait of --mutant=%s (per checkpoint early exit, default %s) or %s (before reconciling starts, default %s); 0 = the default",
			MutantSlowEarlyExit, DefaultSlowEarlyExitDelay, MutantSlowStart, DefaultSlowStartDelay),
		Doc: `MutantDelay is the injected wait of the slowdown mutants slow-early-exit (per checkpoint early
exit) and slow-start (before reconciling starts); only with one of them. Default: the
controller's (5ms and 1s).`},
}

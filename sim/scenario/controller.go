package scenario

// Controller is the controller under test: the reference controller with one or more strategies,
// or an external binary.
type Controller struct {
	// Replicas is the number of controller instances (leader election between them). Default 1.
	Replicas int `json:"replicas,omitempty"`
	// WarmupWorkers, when set, gives the instance that runs before the measured phase (the warm-up,
	// which converges the fleet) this many reconcile workers; instances started by a restart use the
	// strategy's. Only its end state reaches the measured phase, and at 10,000 bindings the strategy's
	// own 3 workers would take most of the wall budget to converge. Needs replicas 1: a standby would
	// keep the workers into the measured phase. Default: the strategy's.
	WarmupWorkers int `json:"warmupWorkers,omitempty"`
	// RegistrationRate is how many RegisterTargets calls per scenario second the controller makes
	// at most: the warm-up, which registers every binding's targets, is given time for it (about
	// 1.5 × bindings ÷ rate, at least 3 minutes). Default: each strategy's client-side throttle
	// (4/s, LBC's, unless its throttle sets RegisterTargets); 4/s for an external controller.
	RegistrationRate float64 `json:"registrationRate,omitempty"`
	// Strategies are the configurations compared, each on the same fleet and timeline.
	Strategies []Strategy `json:"strategies,omitempty"`
	// External runs one external controller instead of strategies (the same as one strategy with
	// only a name and external).
	External *External `json:"external,omitempty"`
}

// Strategy is one configuration of the reference controller; each runs on an identical fleet and timeline.
// Durations are scenario time (the simulation divides them by timeScale).
type Strategy struct {
	// Name labels the strategy's results. Required, unique.
	Name string `json:"name"`
	// ConvergeWith names another strategy of the scenario whose controller converges the fleet
	// before the measured phase; the first restart of the timeline then stops it and starts this
	// strategy's controller in its place, as an upgrade or a switch from one controller to another
	// would (e.g. converge with the reference controller, restart into the AWS Load Balancer
	// Controller). Only the named strategy's controller is used, not its own convergeWith. Needs
	// controller.replicas 1 and a restart in the timeline. Default: this strategy's own controller
	// converges the fleet.
	ConvergeWith string `json:"convergeWith,omitempty"`
	// The fields from here to the end marker are generated from controller.Knobs by go generate.

	// Checkpoint is none, annotation (default) or compact: how a binding records that AWS already
	// matches it, so the reconcile after a restart can exit early without AWS calls.
	Checkpoint string `json:"checkpoint,omitempty"`
	// ModelCheckpoint is none (default) or model: whether the load balancer reconcilers (which run
	// when the fleet has Ingresses or Services of type LoadBalancer) save the SHA-256 of each Ingress
	// group's or Service's ELBv2 model and its inputs, and skip an unchanged one after a restart.
	ModelCheckpoint string `json:"modelCheckpoint,omitempty"`
	// PriorityQueue uses controller-runtime's priority queue. Default false.
	PriorityQueue *bool `json:"priorityQueue,omitempty"`
	// LowPriorityInitialEvents enqueues the initial list's events at low priority (needs
	// priorityQueue). Default false.
	LowPriorityInitialEvents *bool `json:"lowPriorityInitialEvents,omitempty"`
	// DeferralDelay is when a binding that exited early is reconciled in full after all. Default 30m.
	DeferralDelay *Duration `json:"deferralDelay,omitempty"`
	// DeferralJitter spreads those full reconciles uniformly over this much more. Default 15m.
	DeferralJitter *Duration `json:"deferralJitter,omitempty"`
	// RequeueDuration is the requeue while a gated target is not healthy yet. Default 15s.
	RequeueDuration *Duration `json:"requeueDuration,omitempty"`
	// TargetHealthCacheTTL caches DescribeTargetHealth answers. Default 5m.
	TargetHealthCacheTTL *Duration `json:"targetHealthCacheTTL,omitempty"`
	// SecurityGroupCacheTTL caches ENI, security group and VPC lookups. Default 10m.
	SecurityGroupCacheTTL *Duration `json:"securityGroupCacheTTL,omitempty"`
	// SyncPeriod is the informers' resync period. Default 10h.
	SyncPeriod *Duration `json:"syncPeriod,omitempty"`
	// DriftCheckInterval is how often a binding whose checkpoint matches is checked for out-of-band
	// drift (Describe calls only). Default: the controller's (5m); 0 turns the checks off.
	DriftCheckInterval *Duration `json:"driftCheckInterval,omitempty"`
	// Resume turns on the controller's restart fast path: it records a resume watermark while it runs
	// and, after a restart, reconciles what changed since then before its caches have synced.
	// ResumeInterval is how often the watermark advances (default: the controller's, 10s).
	Resume         *bool     `json:"resume,omitempty"`
	ResumeInterval *Duration `json:"resumeInterval,omitempty"`
	// LeaderElection turns the replicas' Lease-based leader election on or off. Default: on when
	// controller.replicas > 1 or the strategy is inProcess. With one replica it makes a restarted instance wait for the crashed
	// one's Lease, as a production deployment with leader election does.
	LeaderElection *bool `json:"leaderElection,omitempty"`
	// LeaseDuration, RenewDeadline and RetryPeriod time the leader election, in scenario time like
	// every duration. Default: controller-runtime's 15s, 10s and 2s (an out-of-process binary keeps
	// them in wall time, hence timeScale 1 there).
	LeaseDuration *Duration `json:"leaseDuration,omitempty"`
	RenewDeadline *Duration `json:"renewDeadline,omitempty"`
	RetryPeriod   *Duration `json:"retryPeriod,omitempty"`
	// ReleaseOnCancel: a leader that stops gracefully releases its Lease at once, so its successor
	// need not wait for it to expire. Default true.
	ReleaseOnCancel *bool `json:"releaseOnCancel,omitempty"`
	// Warmup starts a standby's informers before it leads (controller-runtime's EnableWarmup): a
	// warm standby. Default false.
	Warmup *bool `json:"warmup,omitempty"`
	// MaxConcurrentReconciles is the number of reconcile workers. Default 3.
	MaxConcurrentReconciles int `json:"maxConcurrentReconciles,omitempty"`
	// Throttle is the client-side throttle config, "serviceID:operationRegex=rate:burst,...".
	Throttle string `json:"throttle,omitempty"`
	// MaxAttempts is the SDK retryer's attempt limit (default: the controller's).
	MaxAttempts int `json:"maxAttempts,omitempty"`
	// Mutant re-introduces a known upstream bug (test only).
	Mutant string `json:"mutant,omitempty"`
	// MutantDelay is the injected wait of the slowdown mutants slow-early-exit (per checkpoint early
	// exit) and slow-start (before reconciling starts); only with one of them. Default: the
	// controller's (5ms and 1s).
	MutantDelay *Duration `json:"mutantDelay,omitempty"`

	// End of the fields generated from controller.Knobs.

	// Binary, when set, runs the strategy out of process as `<binary> controller <flags>` (a
	// restartsim build, e.g. of another commit), with the options an in-process instance would get
	// and Args appended; each is a template like controller.external's command. Default: in process.
	Binary string   `json:"binary,omitempty"`
	Args   []string `json:"args,omitempty"`
	// External, when set, makes the strategy an external controller (see External; its name is
	// the strategy's) run on the same fleet and timeline as the reference strategies beside it.
	// It takes no other field of the strategy but name and convergeWith.
	External *External `json:"external,omitempty"`
	// InProcess, when set, makes the strategy a controller-runtime manager that a Go test builds
	// in its own process (package restartsimtest), one per replica; the CLI cannot run it. It
	// takes no other field of the strategy but name, convergeWith and the leader-election fields.
	InProcess *InProcess `json:"inProcess,omitempty"`
}

// External runs any controller binary as a child process, one per replica.
type External struct {
	// Name labels the results. Default "external".
	Name string `json:"name,omitempty"`
	// Command is the argv; each element is a Go template over {{.Kubeconfig}} {{.APIServer}} {{.AWSEndpoint}} {{.Region}}
	// {{.AccessKeyID}} {{.SecretAccessKey}} {{.Port}} {{.MetricsPort}} {{.HealthPort}} {{.CertDir}}
	// {{.Replica}} {{.ClusterName}} {{.VpcID}} {{.Namespace}}.
	Command []string `json:"command"`
	// Env is added to the child's environment, templated like Command, after the AWS settings the harness
	// gives every external controller (fakeaws's endpoint, key pair and region; none of its own AWS_ variables),
	// which it may override.
	Env map[string]string `json:"env,omitempty"`
	// MetricsPath is scraped on {{.MetricsPort}} for queue depth. Default /metrics.
	MetricsPath string `json:"metricsPath,omitempty"`
	// CacheSyncedLog is a regular expression matched against each line of the controller's output;
	// the first match after a start is when its caches synced (cache_sync_seconds). Default:
	// controller-runtime's "Starting workers", logged once a controller's caches have synced.
	CacheSyncedLog string `json:"cacheSyncedLog,omitempty"`
	// Lease is the leader-election Lease the controller holds while it leads. When set, the first
	// replica is started alone until it holds the Lease (so the oldest replica is the leader), and
	// a restart's new instance leads once the Lease has a new holder with a fresh renewTime (the
	// restart's end, await: leader, and the blind time it measures). Default: none, and a
	// restart's new instance counts as leading once started.
	Lease *Lease `json:"lease,omitempty"`
	// QueueDepth selects the work queue's depth among the metrics scraped: the sum of the series of
	// this metric whose labels match. Default: every workqueue_depth series summed.
	QueueDepth *MetricSelector `json:"queueDepth,omitempty"`
	// DeferredQueueDepth selects the deferred queue's depth the same way. Default:
	// tgb_deferred_queue_depth (the reference controller's).
	DeferredQueueDepth *MetricSelector `json:"deferredQueueDepth,omitempty"`
	// ReconcileControllers are the controller-runtime controllers (the `controller` label of
	// controller_runtime_reconcile_*, the `name` label of workqueue_depth) whose reconcile work
	// the restart's work figures count. Default: every controller of the process.
	ReconcileControllers []string `json:"reconcileControllers,omitempty"`
}

// Lease names a coordination.k8s.io Lease.
type Lease struct {
	// Name is the Lease's name, e.g. aws-load-balancer-controller-leader.
	Name string `json:"name"`
	// Namespace is the Lease's namespace, templated like External.Command. Default {{.Namespace}},
	// the namespace the harness creates for leader election.
	Namespace string `json:"namespace,omitempty"`
}

// MetricSelector picks Prometheus series: those of Metric whose labels include every Labels pair.
type MetricSelector struct {
	// Metric is the Prometheus metric name, e.g. workqueue_depth.
	Metric string `json:"metric"`
	// Labels must all match, e.g. {name: targetGroupBinding}.
	Labels map[string]string `json:"labels,omitempty"`
}

// Checkpoint modes of a strategy.
const (
	CheckpointNone       = "none"
	CheckpointAnnotation = "annotation"
	CheckpointCompact    = "compact"
)

// Model checkpoint modes of a strategy.
const (
	ModelCheckpointNone  = "none"
	ModelCheckpointModel = "model"
)

// TemplateData is what an external controller's command and env templates can use.
type TemplateData struct {
	Kubeconfig string
	// APIServer is the cluster's API server URL (Karpenter's CLUSTER_ENDPOINT).
	APIServer       string
	AWSEndpoint     string
	Region          string
	AccessKeyID     string
	SecretAccessKey string
	Port            int
	MetricsPort     int
	HealthPort      int
	CertDir         string
	Replica         int
	ClusterName     string
	VpcID           string
	Namespace       string
}

package scenario

// APIVersion and Kind identify a scenario file.
const (
	APIVersion = "restartsim/v1"
	Kind       = "Scenario"
)

// Scenario is one simulation: a fleet, the controller strategies to compare, a timeline of events
// and the limits its results must meet.
type Scenario struct {
	// APIVersion must be restartsim/v1.
	APIVersion string `json:"apiVersion"`
	// Kind must be Scenario.
	Kind string `json:"kind"`
	// Name names the output folder (out/<name>/<time>/) and the report. Required.
	Name string `json:"name"`
	// Description is free text for people.
	Description string `json:"description,omitempty"`
	// Seed drives every random choice: same seed, same fleet and timeline. Default 1.
	Seed int64 `json:"seed,omitempty"`
	// TimeScale speeds the run up: AWS rates × TimeScale, every delay ÷ TimeScale. Results are in
	// scenario time. Default 1.
	TimeScale float64 `json:"timeScale,omitempty"`
	// Repeats runs each strategy this many times (seeds Seed, Seed+1, ...); summaries are medians. Default 1.
	Repeats int `json:"repeats,omitempty"`
	// Cluster is the Kubernetes API server the run uses. Default: envtest.
	Cluster Cluster `json:"cluster,omitempty"`
	// AWS configures the fake AWS (throttles, latency, errors, target health timing).
	AWS AWS `json:"aws,omitempty"`
	// Fleet is what exists before the measured phase. Required.
	Fleet Fleet `json:"fleet"`
	// Controller is the controller under test, one entry per strategy to compare. Required.
	Controller Controller `json:"controller"`
	// Timeline is the measured phase, step by step. Required.
	Timeline []Step `json:"timeline"`
	// Thresholds are limits on each strategy's results; a breach makes simulate exit 4.
	Thresholds []Threshold `json:"thresholds,omitempty"`
	// Gate are the rules `restartsim gate` checks, against a baseline run and absolute limits.
	Gate []GateRule `json:"gate,omitempty"`
	// AB compares two builds of one strategy (see AB); `restartsim gate` judges the comparison.
	AB *AB `json:"ab,omitempty"`
}

// Cluster selects the Kubernetes API server: envtest (default) or an existing cluster.
type Cluster struct {
	// Envtest starts a local kube-apiserver and etcd (the default).
	Envtest *Envtest `json:"envtest,omitempty"`
	// Kubeconfig runs on an existing cluster instead (as simulate --kubeconfig).
	Kubeconfig *Kubeconfig `json:"kubeconfig,omitempty"`
	// CRDs are more CustomResourceDefinition files or directories (their .yaml, .yml and .json files)
	// to install on envtest besides the harness's own TargetGroupBinding CRD, e.g. the CRDs an external
	// controller needs to start. A CRD of the same name replaces the harness's (an external
	// controller's own TargetGroupBinding schema wins). CRDs are part of the cluster, not of one
	// controller: every strategy of the run, and the fleet they share, is served by the same API.
	// ${VAR} is replaced by the environment variable VAR; paths are relative to the working directory.
	// On a kubeconfig cluster they, and the harness's own, must be served already (the run checks
	// before it creates anything) or are installed with --install-crds.
	CRDs []string `json:"crds,omitempty"`
	// EndpointSlices says who writes the Services' EndpointSlices: "simulated" (the harness's own
	// endpoint controller; Services are selectorless) or "cluster" (the cluster's EndpointSlice
	// controller; Services select their pods, and a pod change reaches the controller under test
	// through a real slice update). Default: simulated on envtest; on a kubeconfig cluster, cluster
	// when a kube-controller-manager holds its Lease, else simulated.
	EndpointSlices string `json:"endpointSlices,omitempty"`
}

// Values of Cluster.EndpointSlices.
const (
	EndpointSlicesSimulated = "simulated"
	EndpointSlicesCluster   = "cluster"
)

// Envtest starts a local kube-apiserver and etcd.
type Envtest struct {
	// AssetsDir overrides where kube-apiserver and etcd are found (default bin/k8s/<version>).
	AssetsDir string `json:"assetsDir,omitempty"`
}

// Kubeconfig uses an existing cluster; the fleet lives in its own labelled namespaces.
type Kubeconfig struct {
	// Path is the kubeconfig file. Default: $KUBECONFIG or ~/.kube/config.
	Path string `json:"path,omitempty"`
	// Context is the kubeconfig context. Default: the current one.
	Context string `json:"context,omitempty"`
}

// AWS configures fakeaws.
type AWS struct {
	// Profile is the throttle profile of the measured phase: aws-documented (default), aws-2026, unlimited.
	Profile string `json:"profile,omitempty"`
	// WarmupProfile is the throttle profile while the fleet converges before the timeline. Default: Profile.
	WarmupProfile string `json:"warmupProfile,omitempty"`
	// Region is the AWS region. Default us-west-2.
	Region string `json:"region,omitempty"`
	// Overrides replaces buckets of operations or categories (e.g. "elbv2/registration") in the measured phase.
	Overrides map[string]Limit `json:"overrides,omitempty"`
	// Latency is injected per operation ("*" for all), in scenario time.
	Latency map[string]Latency `json:"latency,omitempty"`
	// HealthyAfter is how long a new target stays "initial". Default 10s.
	HealthyAfter *Duration `json:"healthyAfter,omitempty"`
	// DeregistrationDelay is how long a deregistered target drains. Default 300s.
	DeregistrationDelay *Duration `json:"deregistrationDelay,omitempty"`
	// Faults are error rates that hold for the whole measured phase.
	Faults []ErrorFault `json:"faults,omitempty"`
}

// Limit is a token bucket: Rate per scenario second, Burst capacity; Rate < 0 is unlimited.
type Limit struct {
	// Rate is the tokens added per scenario second; below 0, unlimited.
	Rate float64 `json:"rate"`
	// Burst is the bucket's capacity.
	Burst int `json:"burst"`
}

// Latency is a base latency plus uniform jitter in [0, Jitter).
type Latency struct {
	// Base is added to every call (scenario time).
	Base Duration `json:"base"`
	// Jitter adds a uniform random delay below it. Default 0.
	Jitter Duration `json:"jitter,omitempty"`
}

// ErrorFault makes a fraction of an operation's calls fail with Code.
type ErrorFault struct {
	// Operation is an API operation name or "*" for all.
	Operation string `json:"operation"`
	// Rate is the fraction of the calls that fail, from 0 to 1.
	Rate float64 `json:"rate"`
	// Code is the AWS error code. Default ServiceUnavailable.
	Code string `json:"code,omitempty"`
}

// Fleet is what the simulation creates before the measured phase.
type Fleet struct {
	// TargetGroupBindings is the number of TGBs, one Service and target group each.
	TargetGroupBindings int `json:"targetGroupBindings"`
	// Namespaces spreads the fleet. Default ceil(TGBs / 500).
	Namespaces int `json:"namespaces,omitempty"`
	// PodsPerService is the number of endpoints per Service. Default 3.
	PodsPerService int `json:"podsPerService,omitempty"`
	// Nodes hosts the pods and backs instance targets. Default max(3, TGBs/100).
	Nodes int `json:"nodes,omitempty"`
	// InstanceShare is the fraction of TGBs with instance targets (the rest are ip). Default 0.
	InstanceShare float64 `json:"instanceShare,omitempty"`
	// ReadinessGateShare is the fraction of ip TGBs whose pods carry the readiness gate. Default 0.
	ReadinessGateShare float64 `json:"readinessGateShare,omitempty"`
	// NetworkingShare is the fraction of TGBs with spec.networking ingress rules. Default 0.
	NetworkingShare float64 `json:"networkingShare,omitempty"`
	// Concurrency is the number of parallel creators. Default 32.
	Concurrency int `json:"concurrency,omitempty"`
	// ContainerRestartDelay is how long a containerRestart keeps the container down. Default 10s.
	ContainerRestartDelay *Duration `json:"containerRestartDelay,omitempty"`
}

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
	// Checkpoint is none, annotation (default) or compact: how a binding records that AWS already
	// matches it, so the reconcile after a restart can exit early without AWS calls.
	Checkpoint string `json:"checkpoint,omitempty"`
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
	// controller.replicas > 1. With one replica it makes a restarted instance wait for the crashed
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
	// Binary, when set, runs the strategy out of process as `<binary> controller <flags>` (a
	// restartsim build, e.g. of another commit), with the options an in-process instance would get
	// and Args appended; each is a template like controller.external's command. Default: in process.
	Binary string   `json:"binary,omitempty"`
	Args   []string `json:"args,omitempty"`
	// External, when set, makes the strategy an external controller (see External; its name is
	// the strategy's) run on the same fleet and timeline as the reference strategies beside it.
	// It takes no other field of the strategy but name.
	External *External `json:"external,omitempty"`
}

// External runs any controller binary as a child process, one per replica.
type External struct {
	// Name labels the results. Default "external".
	Name string `json:"name,omitempty"`
	// Command is the argv; each element is a Go template over {{.Kubeconfig}} {{.AWSEndpoint}} {{.Region}}
	// {{.AccessKeyID}} {{.SecretAccessKey}} {{.Port}} {{.MetricsPort}} {{.HealthPort}} {{.CertDir}}
	// {{.Replica}} {{.ClusterName}} {{.VpcID}} {{.Namespace}}.
	Command []string `json:"command"`
	// Env is added to the child's environment, templated like Command.
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

// Step is one timeline entry: an action, or a waitFor. When it runs: At (offset from the start of
// the measured phase, or "random" within Within after the previous step) or After (delay after the
// previous step); neither means right after the previous step.
type Step struct {
	// Action is restart, churn, containerRestart, awsFault, awsDrift or wait.
	Action string `json:"action,omitempty"`
	// WaitFor is steadyState (every invariant holds, nothing pending) or leader (the new instance
	// of every earlier restart leads), instead of an action.
	WaitFor string `json:"waitFor,omitempty"`
	// At is an offset from the start of the measured phase, or "random" (within Within after the
	// previous step).
	At *At `json:"at,omitempty"`
	// After is a delay after the previous step. Default: none, right after it.
	After *Duration `json:"after,omitempty"`
	// Within bounds "at: random": a uniform offset in [0, Within) after the previous step. Default 10s.
	Within *Duration `json:"within,omitempty"`
	// Timeout bounds waitFor. Default 10m.
	Timeout *Duration `json:"timeout,omitempty"`

	// restart: Mode crash (default) or leaderHandover. Await leader (default) completes the step when
	// the new instance leads (its caches have synced); none completes it once the new instance has
	// been started, so the next steps' changes land while it is still starting up.
	// Downtime (default 0) is how long after the stop the replacement starts (a crashed pod's
	// restart or rescheduling); changes made meanwhile are pending when it starts. TTFMR and steady
	// state count from the stop plus the downtime.
	Mode     string    `json:"mode,omitempty"`
	Await    string    `json:"await,omitempty"`
	Downtime *Duration `json:"downtime,omitempty"`
	// StripCheckpoints (restart) removes the checkpoint annotations (elbv2.k8s.aws/checkpoint and
	// elbv2.k8s.aws/checkpoint-timestamp) from every binding once the leader stopped, before the
	// replacement starts: the restart of a controller that never saved checkpoints. The harness's
	// own identity writes them, so they are not counted as the controller's writes. The replacement
	// starts after the downtime or once the annotations are gone, whichever is later.
	StripCheckpoints bool `json:"stripCheckpoints,omitempty"`

	// churn: Kind scale, rotate, addTGB, removeTGB, recreateService, staleGate, replaceNode or mixed
	// (default); Services is how many (default 10; not for replaceNode); Duration is how long
	// recreateService keeps a Service deleted (default 10s); Count is how many nodes replaceNode
	// replaces, one after another (default 1, at most fleet.nodes).
	// awsDrift: Kind removeTarget (default) or revokeIngress; Count is how many.
	Kind     string `json:"kind,omitempty"`
	Services int    `json:"services,omitempty"`
	Count    int    `json:"count,omitempty"`
	// containerRestart: Pods is how many pods (chosen among readiness-gated ones first). Default 1.
	Pods int `json:"pods,omitempty"`

	// awsFault: Fault is profile, limit, errors, outage or latency; Duration bounds it (0 = rest of run).
	Fault string `json:"fault,omitempty"`
	// Profile (fault profile) switches to another throttle profile: aws-documented, aws-2026, unlimited.
	Profile string `json:"profile,omitempty"`
	// Limits (fault limit) replaces the buckets of operations or categories, as aws.overrides.
	Limits map[string]Limit `json:"limits,omitempty"`
	// Operation (fault errors or latency) is the API operation hit, or "*" for all.
	Operation string `json:"operation,omitempty"`
	// Rate (fault errors) is the fraction of its calls that fail.
	Rate float64 `json:"rate,omitempty"`
	// Code (fault errors) is the AWS error code. Default ServiceUnavailable.
	Code string `json:"code,omitempty"`
	// AWSServices limits an outage (fault outage). Default elbv2 and ec2.
	AWSServices []string `json:"awsServices,omitempty"`
	// Latency (fault latency) is added to the operation's calls.
	Latency *Latency `json:"latency,omitempty"`

	// wait and awsFault: Duration.
	Duration *Duration `json:"duration,omitempty"`
}

// Threshold is a limit on one summary metric (see results.MetricNames) for the named strategies
// (all when empty). Max is a number, or a duration for *_seconds metrics.
type Threshold struct {
	// Metric is a summary metric, e.g. blind_time_p50_seconds, ttfmr_seconds, invariant_violations.
	Metric string `json:"metric"`
	// Max is the largest passing value: a number, or a duration for *_seconds metrics.
	Max Number `json:"max"`
	// Strategies the threshold applies to. Default: all.
	Strategies []string `json:"strategies,omitempty"`
}

// GateRule is a CI gate rule, copied into results.json for `restartsim gate`.
type GateRule struct {
	// Metric is a summary metric, as for thresholds.
	Metric string `json:"metric"`
	// Strategy is whose metric is checked.
	Strategy string `json:"strategy"`
	// RelativeTo divides the metric by the same metric of this strategy in the same run, which
	// cancels the machine's speed (e.g. checkpoint's p95 over no-checkpoint's).
	RelativeTo string `json:"relativeTo,omitempty"`
	// Max is an absolute limit on the (possibly relative) value.
	Max *float64 `json:"max,omitempty"`
	// MaxRegression is the allowed increase over the baseline run, as a fraction (0.2 = +20 %).
	MaxRegression *float64 `json:"maxRegression,omitempty"`
	// Slack is added to the regression limit, for counts near zero. Default 0.
	Slack float64 `json:"slack,omitempty"`
}

// Action names.
const (
	ActionRestart          = "restart"
	ActionChurn            = "churn"
	ActionContainerRestart = "containerRestart"
	ActionAWSFault         = "awsFault"
	ActionAWSDrift         = "awsDrift"
	ActionWait             = "wait"

	WaitForSteadyState = "steadyState"
	// WaitForLeader waits until the new instance of every earlier restart leads (the restarts with
	// await: none), e.g. to make changes only once the new leader holds its Lease.
	WaitForLeader = "leader"

	RestartCrash          = "crash"
	RestartLeaderHandover = "leaderHandover"
	RestartGraceful       = "graceful"

	AwaitLeader = "leader"
	AwaitNone   = "none"

	ChurnScale     = "scale"
	ChurnRotate    = "rotate"
	ChurnAddTGB    = "addTGB"
	ChurnRemoveTGB = "removeTGB"
	ChurnMixed     = "mixed"
	// ChurnRecreateService deletes ip TGBs' Services and creates them again after Duration
	// (default 10s) with unchanged endpoints (upstream #4343).
	ChurnRecreateService = "recreateService"
	// ChurnStaleGate sets one pod's readiness gate of gated TGBs back to False while the checkpoint
	// still matches, as a stale writer does (upstream #4737).
	ChurnStaleGate = "staleGate"
	// ChurnReplaceNode replaces Count nodes, one after another, as a node group's instance refresh
	// does: a new node (and EC2 instance) joins Ready, then the oldest node still Ready turns
	// NotReady. Every instance TGB must register the new instance and deregister the old one on its
	// NodePort. Needs instance TGBs (fleet.instanceShare above 0).
	ChurnReplaceNode = "replaceNode"

	DriftRemoveTarget  = "removeTarget"
	DriftRevokeIngress = "revokeIngress"

	FaultProfile = "profile"
	FaultLimit   = "limit"
	FaultErrors  = "errors"
	FaultOutage  = "outage"
	FaultLatency = "latency"

	CheckpointNone       = "none"
	CheckpointAnnotation = "annotation"
	CheckpointCompact    = "compact"
)

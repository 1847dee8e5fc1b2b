package controller

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/restartsim/restartsim/internal/leasetiming"
	"github.com/restartsim/restartsim/internal/throttlespec"
)

// CheckpointMode selects the startup strategy.
type CheckpointMode string

const (
	// CheckpointNone makes every reconcile a full one.
	CheckpointNone CheckpointMode = "none"
	// CheckpointAnnotation is upstream LBC: two annotations, deferred queue resetting with a PATCH.
	CheckpointAnnotation CheckpointMode = "annotation"
	// CheckpointCompact is one annotation <hash>/<unixSeconds> and an in-controller requeue.
	CheckpointCompact CheckpointMode = "compact"
)

// ModelCheckpointMode selects the restart strategy of the load balancer reconcilers.
type ModelCheckpointMode string

const (
	// ModelCheckpointNone deploys every reconciled Ingress group and Service.
	ModelCheckpointNone ModelCheckpointMode = "none"
	// ModelCheckpointModel skips a group or Service whose stored lbmodel.Checkpoint still matches.
	ModelCheckpointModel ModelCheckpointMode = "model"
)

// Options configures a controller. Zero values take the documented defaults (see setDefaults).
type Options struct {
	// Checkpoint is the startup strategy. Default: annotation.
	Checkpoint CheckpointMode
	// PriorityQueue uses controller-runtime's priority queue (applied by ManagerOptions and New).
	// Default: false in the library (a bool has no unset state); the binary's flag defaults to true
	// like upstream.
	PriorityQueue bool
	// LowPriorityInitialEvents makes the controller's own Service, EndpointSlice, Pod and Node
	// handlers enqueue initial-list events at low priority (upstream does not). Needs PriorityQueue.
	LowPriorityInitialEvents bool

	// DeferralDelay is the fixed part of the deferred full reconcile after an early exit. Default: 30m.
	DeferralDelay time.Duration
	// DeferralJitter is the uniform jitter [0, DeferralJitter) added to DeferralDelay. Default: 15m.
	// A negative value means no jitter.
	DeferralJitter time.Duration
	// RequeueDuration is the requeue while a gated target is not healthy yet. Default: 15s.
	RequeueDuration time.Duration
	// TargetHealthCacheTTL is how long DescribeTargetHealth results are reused. Default: 5m.
	TargetHealthCacheTTL time.Duration
	// SecurityGroupCacheTTL is how long ENI, security group and VPC lookups are reused. Default: 10m.
	SecurityGroupCacheTTL time.Duration
	// SyncPeriod is the informer resync period and the TTL of the deferred "processed" set. Default: 10h.
	SyncPeriod time.Duration
	// MaxConcurrentReconciles is the number of reconcile workers. Default: 3.
	MaxConcurrentReconciles int
	// DriftCheckInterval is how often a binding whose checkpoint matches is checked for out-of-band
	// drift (targets removed or added, owned security group rules revoked) with Describe calls only,
	// plus uniform jitter in [0, DriftCheckInterval/2); AWS data younger than DriftCheckInterval/2 is
	// reused, so bindings sharing a security group share one DescribeSecurityGroups. Drift found
	// turns the reconcile into a full one (see doc.go). Default: 5m. Negative: off (upstream: drift
	// waits for the deferred full reconcile).
	DriftCheckInterval time.Duration

	// Resume turns on the restart fast path (resume.go, internal/resume): while running, the instance records in a
	// ConfigMap the resource versions up to which every TargetGroupBinding, Service and
	// EndpointSlice event has been reconciled (the watermark); after a restart it watches from
	// that watermark and reconciles the bindings changed since then with live reads, before its
	// caches have synced, so changes made around a restart do not wait for a full list of the
	// fleet. Default: false.
	Resume bool
	// ResumeNamespace holds the watermark ConfigMap <LeaderElectionID>-resume. Default:
	// LeaderElectionNamespace; Resume needs one of the two.
	ResumeNamespace string
	// ResumeInterval is how often the watermark is advanced. Default: 10s.
	ResumeInterval time.Duration

	// LoadBalancers runs the Ingress and Service (type LoadBalancer) reconcilers beside the
	// TargetGroupBinding one (package lb): each Ingress group or Service becomes an ELBv2 stack and the
	// TargetGroupBindings of its target groups. Needs ClusterName and VpcID. Default: false.
	LoadBalancers bool
	// ModelCheckpoint is the restart strategy of the load balancer reconcilers: none (deploy on every
	// reconcile) or model (skip a group or Service whose stored model checkpoint still matches, with
	// no AWS call). Default: none.
	ModelCheckpoint ModelCheckpointMode
	// IngressClass is the IngressClass whose Ingresses the Ingress reconciler manages. Default: alb.
	IngressClass string

	// ClusterName picks the cluster-tagged security group when a target ENI has several, and is the
	// elbv2.k8s.aws/cluster tag of the load balancer stacks. Default: "".
	ClusterName string
	// VpcID is the VPC of the target groups when the spec does not name one; used to register IPs
	// outside the VPC with availability zone "all", and the VPC of the load balancer stacks.
	// Default: "" (no VPC lookup).
	VpcID string
	// AWS configures the AWS clients.
	AWS AWSOptions

	// LeaderElection, LeaderElectionID, LeaderElectionNamespace configure the manager's Lease-based
	// leader election (applied by ManagerOptions). Defaults: false, "restartsim-tgb-controller", "".
	LeaderElection          bool
	LeaderElectionID        string
	LeaderElectionNamespace string
	// LeaseDuration, RenewDeadline and RetryPeriod time the leader election: how long a crashed
	// leader's Lease keeps a standby waiting, how long a leader retries renewing before it gives up,
	// and how often candidates try. Defaults (zero): controller-runtime's 15 s, 10 s and 2 s.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// KeepLeaseOnStop makes a leader that stops keep its Lease until it expires, as
	// controller-runtime does by default, instead of releasing it at once; its successor then waits
	// LeaseDuration even after a graceful stop. Default false: released.
	KeepLeaseOnStop bool
	// Warmup starts a standby's informers before it leads (controller-runtime's EnableWarmup), so a
	// new leader starts its workers on synced caches. Default false: sources start on leading.
	Warmup bool
	// MetricsBindAddress and HealthProbeBindAddress are applied by ManagerOptions.
	// Defaults: "0" (metrics server off) and "" (probes off); the binary uses loopback addresses.
	MetricsBindAddress     string
	HealthProbeBindAddress string
	// Namespaces limits the namespaced objects the manager caches (applied by ManagerOptions).
	// Default: all namespaces.
	Namespaces []string

	// Clock is the time source of checkpoint timestamps, deferrals and caches. Default: real clock.
	Clock clock.WithTicker
	// Rand seeds the deferral and drift-check jitter (two draws in New); each binding's jitter is
	// then a hash of that seed and its key, independent of reconcile order. Default: seeded from
	// the clock.
	Rand *rand.Rand
	// Logger is the controller's logger. Default: the manager's logger.
	Logger logr.Logger
	// MetricsRegistry receives the tgb_* metrics of this instance. Default: controller-runtime's
	// registry (registering twice reuses the existing collectors).
	MetricsRegistry prometheus.Registerer
	// Mutant, when set, injects a known bug (see mutants.go) for mutation testing. Refused by
	// Validate unless AllowMutants is set or the binary is built with -tags mutants. Default: "".
	Mutant string
	// AllowMutants permits Mutant in a binary built without the `mutants` tag. Default: false.
	AllowMutants bool
	// MutantDelay is the injected wait of the slowdown mutants: per checkpoint early exit for
	// slow-early-exit, before reconciling starts for slow-start. Only with one of them; must be
	// positive. Default: 5ms (slow-early-exit), 1s (slow-start).
	MutantDelay time.Duration

	// legacyStartup turns off the startup optimisations (cache transform, no secondary
	// initial-list fan-out, read-only cache lists), so a benchmark can compare both in one run.
	legacyStartup bool
	// defaulted marks options setDefaults has filled, so that New and ManagerOptions given them
	// (as WithDefaults returns them) do not default them again.
	defaulted bool
}

// AWSOptions configures the AWS clients.
type AWSOptions struct {
	// Region is the AWS region. Default: us-east-1.
	Region string
	// Endpoint is the BaseEndpoint of both clients. Default: "" (real AWS).
	Endpoint string
	// AccessKeyID and SecretAccessKey are static credentials. Default: "" (the default credential chain).
	AccessKeyID     string
	SecretAccessKey string
	// MaxAttempts is the standard retryer's attempt limit (the retry token bucket is off). Default: 10.
	MaxAttempts int
	// Throttle is the client-side throttle in the upstream --aws-api-throttle format
	// `serviceID:operationRegex=rate:burst,...`, merged per service over the upstream defaults.
	// Default: "" (defaults only: ELBv2 Register/Deregister 4:20, Describe 50:200, Modify 3:20).
	Throttle string
}

// Defaults of Options.
const (
	DefaultDeferralDelay           = 30 * time.Minute
	DefaultDeferralJitter          = 15 * time.Minute
	DefaultRequeueDuration         = 15 * time.Second
	DefaultTargetHealthCacheTTL    = 5 * time.Minute
	DefaultSecurityGroupCacheTTL   = 10 * time.Minute
	DefaultSyncPeriod              = 10 * time.Hour
	DefaultMaxConcurrentReconciles = 3
	DefaultDriftCheckInterval      = 5 * time.Minute
	DefaultResumeInterval          = 10 * time.Second
	DefaultMaxAttempts             = 10
	DefaultRegion                  = "us-east-1"
	DefaultLeaderElectionID        = "restartsim-tgb-controller"
	DefaultIngressClass            = "alb"
)

// WithDefaults is o with every unset field at its documented default, as New applies them: the
// options a controller built from o runs with. Given to ManagerOptions and New, they are used as
// they are: a caller that needs both defaults once.
func (o Options) WithDefaults() Options { return o.setDefaults() }

// setDefaults fills every unset field, the knobs' from Knobs; the one place defaults are applied.
func (o Options) setDefaults() Options {
	if o.defaulted {
		return o
	}
	o.defaulted = true
	for _, k := range Knobs {
		k.applyDefault(&o)
	}
	if o.IngressClass == "" {
		o.IngressClass = DefaultIngressClass
	}
	if o.ResumeNamespace == "" {
		o.ResumeNamespace = o.LeaderElectionNamespace
	}
	if o.AWS.Region == "" {
		o.AWS.Region = DefaultRegion
	}
	if o.LeaderElectionID == "" {
		o.LeaderElectionID = DefaultLeaderElectionID
	}
	if o.MetricsBindAddress == "" {
		o.MetricsBindAddress = "0"
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Rand == nil {
		seed := uint64(o.Clock.Now().UnixNano())
		o.Rand = rand.New(rand.NewPCG(seed, seed>>1|1))
	}
	if o.MetricsRegistry == nil {
		o.MetricsRegistry = ctrlmetrics.Registry
	}
	if o.MutantDelay == 0 {
		o.MutantDelay = DefaultMutantDelay(o.Mutant)
	}
	return o
}

// Validate reports invalid options (after defaulting).
func (o Options) Validate() error {
	var errs []error
	switch o.Checkpoint {
	case "", CheckpointNone, CheckpointAnnotation, CheckpointCompact:
	default:
		errs = append(errs, fmt.Errorf("checkpoint: %q is not one of none, annotation, compact", o.Checkpoint))
	}
	if err := o.validateLoadBalancers(); err != nil {
		errs = append(errs, err)
	}
	if _, err := throttlespec.ParseWithDefaults(o.AWS.Throttle); err != nil {
		errs = append(errs, fmt.Errorf("aws throttle: %w", err))
	}
	if err := o.validateMutant(); err != nil {
		errs = append(errs, err)
	}
	if err := o.validateMutantDelay(); err != nil {
		errs = append(errs, err)
	}
	if o.Resume && o.ResumeNamespace == "" && o.LeaderElectionNamespace == "" {
		errs = append(errs, errors.New("resume: needs ResumeNamespace or LeaderElectionNamespace for its watermark ConfigMap"))
	}
	if err := leasetiming.Validate(o.LeaseDuration, o.RenewDeadline, o.RetryPeriod); err != nil {
		errs = append(errs, err)
	}
	if o.DeferralDelay < 0 || o.RequeueDuration < 0 || o.TargetHealthCacheTTL < 0 || o.SecurityGroupCacheTTL < 0 || o.SyncPeriod < 0 || o.ResumeInterval < 0 {
		errs = append(errs, errors.New("durations must not be negative"))
	}
	return errors.Join(errs...)
}

// validateLoadBalancers checks the options of the load balancer reconcilers.
func (o Options) validateLoadBalancers() error {
	var errs []error
	switch o.ModelCheckpoint {
	case "", ModelCheckpointNone, ModelCheckpointModel:
	default:
		errs = append(errs, fmt.Errorf("model checkpoint: %q is not one of none, model", o.ModelCheckpoint))
	}
	if o.LoadBalancers && (o.ClusterName == "" || o.VpcID == "") {
		errs = append(errs, errors.New("load balancers: need ClusterName (the stacks' cluster tag) and VpcID"))
	}
	return errors.Join(errs...)
}

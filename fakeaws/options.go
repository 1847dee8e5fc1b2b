package fakeaws

import (
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/throttle"
)

// Memory bounds of a server unless Options say otherwise: a fake AWS for simulations holds small objects
// (gate baselines are results.json files), and the whole server stays within tens of MiB under hostile
// load.
const (
	DefaultMaxInFlightBodyBytes = 16 << 20
	DefaultMaxObjectBytes       = 8 << 20
	DefaultMaxStoredBytes       = 128 << 20
)

// MaxTimeScale is the largest Options.TimeScale (scenario files allow the same): at 10,000 a wall day is
// 27 scenario years, and scenario durations (int64 nanoseconds) overflow after 292.
const MaxTimeScale = 10000

// Limit is a token bucket in scenario time: Rate tokens per second refill, Burst capacity. Rate < 0 means
// unlimited; Rate 0 with Burst 0 throttles every call.
type Limit = throttle.Limit

// DefaultMaxRecordedCalls is how many calls the recorder holds unless Options.MaxRecordedCalls says
// otherwise: about 15 MB, so that a server under any traffic stays well under 64 MB of heap.
const DefaultMaxRecordedCalls = 1 << 14

// FormLimits bound the parameters of one Query request.
type FormLimits = query.Limits

// Throttle profile names.
const (
	ProfileAWSDocumented = throttle.ProfileDocumented // the documented AWS buckets (design.md §3)
	ProfileAWS2026       = throttle.Profile2026       // ELB describe raised to 200 / 50 per s
	ProfileUnlimited     = throttle.ProfileUnlimited  // never throttles
)

// ProfileLimits returns a throttle profile's buckets, keyed by category (such as
// CategoryELBDescribe); false for an unknown profile. A category the map lacks never throttles.
func ProfileLimits(name string) (map[string]Limit, bool) { return throttle.ProfileLimits(name) }

// Throttle categories, usable as keys of Options.Overrides and SetLimit besides operation names.
const (
	CategoryELBRegistration      = throttle.ELBRegistration
	CategoryELBDescribe          = throttle.ELBDescribe
	CategoryELBMutating          = throttle.ELBMutating
	CategoryELBResourceIntensive = throttle.ELBResourceIntensive
	CategoryEC2Describe          = throttle.EC2Describe
	CategoryEC2Unfiltered        = throttle.EC2Unfiltered
	CategoryEC2Mutating          = throttle.EC2Mutating
	CategoryEC2SecurityGroup     = throttle.EC2SecurityGroup
	CategoryEC2ResourceIntensive = throttle.EC2ResourceIntensive
	// The actions with request figures of their own: each one bucket, keyed by this name.
	CategoryEC2RunInstances       = throttle.EC2RunInstancesRequest
	CategoryEC2TerminateInstances = throttle.EC2TerminateInstancesRequest
	CategoryEC2CreateTags         = throttle.EC2CreateTagsRequest
	CategoryEC2DeleteTags         = throttle.EC2DeleteTagsRequest
	// The resource token buckets: one token per instance an EC2 call launches or terminates.
	BucketEC2RunInstancesResource       = throttle.EC2RunInstancesResource
	BucketEC2TerminateInstancesResource = throttle.EC2TerminateInstancesResource
	CategorySTS                         = throttle.STSRequest
	CategoryRoute53                     = throttle.Route53Request
	CategorySSM                         = throttle.SSMParameterStore
	CategoryIAM                         = throttle.IAMRequest // AWS documents no rate: unlimited unless overridden
	CategoryEKS                         = throttle.EKSRequest // likewise
	// ACM's buckets, one per operation at its documented rate.
	CategoryACMAddTags  = throttle.ACMAddTags
	CategoryACMDelete   = throttle.ACMDelete
	CategoryACMDescribe = throttle.ACMDescribe
	CategoryACMImport   = throttle.ACMImport
	CategoryACMList     = throttle.ACMList
	CategoryACMListTags = throttle.ACMListTags
	CategoryACMRequest  = throttle.ACMRequest
)

// Options configures a Server. Zero values take the documented defaults (applied once, in setDefaults).
type Options struct {
	// Region is the signing region clients must use. Default "us-west-2".
	Region string
	// AccessKeyID and SecretAccessKey are the only accepted credentials. Default "restartsim" / "restartsim".
	AccessKeyID     string
	SecretAccessKey string
	// AccountID owns every resource. Default "123456789012".
	AccountID string
	// Profile is the throttle profile: "aws-documented" (default), "aws-2026" or "unlimited".
	Profile string
	// Overrides replaces the bucket of an operation (own bucket, e.g. "RegisterTargets") or of a category
	// (e.g. "elbv2/describe"). Default none.
	Overrides map[string]Limit
	// HealthyAfter is how long a registered target stays "initial" before turning "healthy". Default 10s.
	HealthyAfter time.Duration
	// DeregistrationDelay is how long a deregistered target stays "draining" before it is gone. Default 300s.
	DeregistrationDelay time.Duration
	// TimeScale speeds scenario time up relative to Clock: rates × TimeScale, delays ÷ TimeScale. Default 1.
	TimeScale float64
	// Seed seeds latency jitter, error injection and resource IDs. Default 0 (still deterministic).
	Seed uint64
	// Clock is the time source: Now, and After for injected latency. Default the real clock; tests pass a
	// k8s.io/utils/clock/testing.FakeClock.
	Clock clock.Clock
	// WallClock is the real time that SigV4 signing times (X-Amz-Date) are checked against. It is separate from
	// Clock because scenario time may run faster than the clients' clocks. Default the real clock.
	WallClock clock.PassiveClock
	// MaxClockSkew is how far X-Amz-Date may be from WallClock before a request fails as expired, like AWS's
	// 5 minutes. Default 5m; negative disables the check.
	MaxClockSkew time.Duration
	// Logger receives debug logs (V(1): every call). Default logr.Discard().
	Logger logr.Logger
	// Registry receives the metrics. Default nil → a new private registry (see Server.Gatherer).
	Registry prometheus.Registerer
	// MaxBodyBytes bounds ELBv2/EC2/admin request bodies (not S3 uploads). Default 1 MiB.
	MaxBodyBytes int64
	// MaxInFlightBodyBytes bounds the memory held by request bodies being read or served, across all
	// connections (Query, admin and S3 uploads). A body is read only once its headers pass what they can
	// of SigV4; its buffer grows with what has arrived and reserves from this budget as it grows; one that
	// cannot reserve within a second is refused with 503 (ServiceUnavailable, EC2 Unavailable, S3
	// SlowDown). At most three quarters of MaxConnections bodies are read at once, so that /healthz and
	// other requests still get a connection, and a body that stops arriving for a sixth of ReadTimeout is
	// cut off. Default DefaultMaxInFlightBodyBytes; it must hold the largest body (MaxBodyBytes, and
	// MaxObjectBytes with room for aws-chunked framing).
	MaxInFlightBodyBytes int64
	// MaxObjectBytes is the largest S3 object or upload part accepted: larger is EntityTooLarge (400),
	// refused from its Content-Length (or X-Amz-Decoded-Content-Length) before the body is read, or as soon as
	// a body without one passes it. Default DefaultMaxObjectBytes.
	MaxObjectBytes int64
	// MaxStoredBytes bounds what S3 holds: every object's bytes, key and metadata plus a fixed overhead per
	// object and bucket, and the parts of unfinished multipart uploads. A write that would pass it is
	// refused with InsufficientCapacity (507). Versioning is off, so an object's old data is not kept.
	// Default DefaultMaxStoredBytes.
	MaxStoredBytes int64
	// FormLimits bound the parameters of an ELBv2/EC2 request (count, key length, key depth); zero fields take
	// query.DefaultLimits (20,000 parameters, 512-byte keys, 10 segments).
	FormLimits FormLimits
	// MaxRecordedCalls is how many calls the Recorder holds; older ones are dropped and counted
	// (Recorder.Dropped, fakeaws_recorder_dropped_calls_total). Default DefaultMaxRecordedCalls; negative holds
	// every call, for a trusted client that needs the whole log (the simulator).
	MaxRecordedCalls int
	// ReadTimeout, WriteTimeout and IdleTimeout bound a connection's request read, response write and idle
	// keep-alive time (the call streams lift the write timeout). Defaults 30s, 2m and 30s.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxConnections is how many connections Start and Serve hold open at once. At the limit a new
	// connection takes the slot of the one that has waited longest without a request in a handler (sent
	// nothing, idle between requests, or still sending its headers), so idle and slow clients cannot keep
	// /healthz and the admin API out; it waits in the listen backlog only while every connection is
	// handling a request. Default 512.
	MaxConnections int
	// AllowNonLoopback lets Start and Serve listen on an address other than loopback. Default false: the
	// server accepts one fixed key pair and has no TLS, so anyone who can reach it can drive it.
	AllowNonLoopback bool
	// MaxTargetsPerGroup is the TooManyTargets quota. Default 1000.
	MaxTargetsPerGroup int
	// MaxTargetGroups is the TooManyTargetGroups quota. Default 3000.
	MaxTargetGroups int
	// LoadBalancerActiveAfter is how long (scenario time) a new load balancer reports State "provisioning" before
	// "active". AWS takes minutes; the default is 5s so that a deployer's wait is exercised without dominating
	// a run. Negative makes load balancers active at once.
	LoadBalancerActiveAfter time.Duration
	// MaxLoadBalancers is the TooManyLoadBalancers quota, per type (application, network). Default 50.
	MaxLoadBalancers int
	// MaxListenersPerLoadBalancer is the TooManyListeners quota. Default 50.
	MaxListenersPerLoadBalancer int
	// MaxRulesPerListener is the TooManyRules quota, not counting the default rule. Default 100.
	MaxRulesPerListener int
	// MaxRulesPerSecurityGroup is the RulesPerSecurityGroupLimitExceeded quota (ingress). Default 60.
	MaxRulesPerSecurityGroup int
	// Route53PropagationDelay is how long (scenario time) a Route53 change stays PENDING before GetChange
	// reports INSYNC. AWS says changes generally propagate within 60 seconds; default 60s. Negative: INSYNC at
	// once.
	Route53PropagationDelay time.Duration
	// InstanceBootDelay is how long (scenario time) an instance RunInstances or CreateFleet launched stays
	// "pending" before it is "running". Default 15s: EC2 reports a Nitro instance running some ten to twenty
	// seconds after the launch call (its operating system boots after that). Negative: running at once.
	InstanceBootDelay time.Duration
	// EKSCluster is the cluster EKS DescribeCluster answers for (nil: none, every name is
	// ResourceNotFoundException); SetEKSCluster changes it.
	EKSCluster *EKSCluster
	// IAMRoles are IAM roles (by name, path "/") that exist from the start, for instance profiles to hold;
	// SeedRole adds more.
	IAMRoles []string
	// CertificateIssueDelay is how long (scenario time) a certificate RequestCertificate asked for stays
	// PENDING_VALIDATION before it is ISSUED. AWS issues a DNS-validated certificate once it finds the
	// validation CNAME, usually within minutes; default 1m. Negative: ISSUED at once.
	CertificateIssueDelay time.Duration
	// MaxHostedZones is the TooManyHostedZones quota. Default 500.
	MaxHostedZones int
	// MaxRecordSetsPerZone bounds the record sets of a hosted zone (AWS's default quota). Default 10,000.
	MaxRecordSetsPerZone int
	// From starts the server with a copy of a snapshot's resources instead of a fresh account. Its account
	// and region must match AccountID and Region (the ARNs embed them). Default nil.
	From *Snapshot
}

func (o *Options) setDefaults() {
	if o.Region == "" {
		o.Region = "us-west-2"
	}
	if o.AccessKeyID == "" {
		o.AccessKeyID = "restartsim"
	}
	if o.SecretAccessKey == "" {
		o.SecretAccessKey = "restartsim"
	}
	if o.AccountID == "" {
		o.AccountID = "123456789012"
	}
	if o.Profile == "" {
		o.Profile = ProfileAWSDocumented
	}
	if o.HealthyAfter == 0 {
		o.HealthyAfter = 10 * time.Second
	}
	if o.DeregistrationDelay == 0 {
		o.DeregistrationDelay = 300 * time.Second
	}
	if o.TimeScale == 0 {
		o.TimeScale = 1
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.WallClock == nil {
		o.WallClock = clock.RealClock{}
	}
	if o.MaxClockSkew == 0 {
		o.MaxClockSkew = 5 * time.Minute
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	if o.MaxBodyBytes == 0 {
		o.MaxBodyBytes = 1 << 20
	}
	defaultTo(&o.MaxInFlightBodyBytes, DefaultMaxInFlightBodyBytes)
	defaultTo(&o.MaxObjectBytes, DefaultMaxObjectBytes)
	defaultTo(&o.MaxStoredBytes, DefaultMaxStoredBytes)
	defaultTo(&o.MaxRecordedCalls, DefaultMaxRecordedCalls)
	defaultTo(&o.ReadTimeout, 30*time.Second)
	defaultTo(&o.WriteTimeout, 2*time.Minute)
	defaultTo(&o.IdleTimeout, 30*time.Second)
	defaultTo(&o.MaxConnections, 512)
	if o.MaxTargetsPerGroup == 0 {
		o.MaxTargetsPerGroup = 1000
	}
	if o.MaxTargetGroups == 0 {
		o.MaxTargetGroups = 3000
	}
	o.LoadBalancerActiveAfter = defaultDelay(o.LoadBalancerActiveAfter, 5*time.Second)
	defaultTo(&o.MaxLoadBalancers, 50)
	defaultTo(&o.MaxListenersPerLoadBalancer, 50)
	defaultTo(&o.MaxRulesPerListener, 100)
	o.Route53PropagationDelay = defaultDelay(o.Route53PropagationDelay, 60*time.Second)
	o.InstanceBootDelay = defaultDelay(o.InstanceBootDelay, 15*time.Second)
	o.CertificateIssueDelay = defaultDelay(o.CertificateIssueDelay, time.Minute)
	defaultTo(&o.MaxHostedZones, 500)
	defaultTo(&o.MaxRecordSetsPerZone, 10000)
	if o.MaxRulesPerSecurityGroup == 0 {
		o.MaxRulesPerSecurityGroup = 60
	}
}

// ValidateTimeScale accepts a finite scale in (0, MaxTimeScale].
func ValidateTimeScale(scale float64) error {
	if math.IsNaN(scale) || scale <= 0 || scale > MaxTimeScale {
		return fmt.Errorf("must be a number in (0, %d], got %v", MaxTimeScale, scale)
	}
	return nil
}

func defaultTo[T comparable](field *T, def T) {
	var zero T
	if *field == zero {
		*field = def
	}
}

func (o *Options) validate() error {
	var errs []error
	if !throttle.ValidProfile(o.Profile) {
		errs = append(errs, fmt.Errorf("profile: unknown %q (known: %v)", o.Profile, throttle.Profiles()))
	}
	if o.From != nil && (o.From.accountID != o.AccountID || o.From.region != o.Region) {
		errs = append(errs, fmt.Errorf("from: snapshot of account %s in %s, server is %s in %s", o.From.accountID, o.From.region, o.AccountID, o.Region))
	}
	if err := ValidateTimeScale(o.TimeScale); err != nil {
		errs = append(errs, fmt.Errorf("timeScale: %w", err))
	}
	if o.HealthyAfter < 0 || o.DeregistrationDelay < 0 {
		errs = append(errs, errors.New("healthyAfter, deregistrationDelay: must not be negative"))
	}
	if o.ReadTimeout < 0 || o.WriteTimeout < 0 || o.IdleTimeout < 0 || o.MaxConnections < 0 {
		errs = append(errs, errors.New("readTimeout, writeTimeout, idleTimeout, maxConnections: must not be negative"))
	}
	if o.MaxBodyBytes < 0 || o.MaxObjectBytes < 0 || o.MaxStoredBytes < 0 {
		errs = append(errs, errors.New("maxBodyBytes, maxObjectBytes, maxStoredBytes: must not be negative"))
	}
	if need := max(o.MaxBodyBytes, s3BodyLimit(o.MaxObjectBytes)) + 1; o.MaxInFlightBodyBytes < need {
		errs = append(errs, fmt.Errorf("maxInFlightBodyBytes: %d cannot hold the largest body (%d bytes)", o.MaxInFlightBodyBytes, need))
	}
	return errors.Join(errs...)
}

// defaultDelay is d, def for zero, and zero for negative (a delay switched off).
func defaultDelay(d, def time.Duration) time.Duration {
	switch {
	case d == 0:
		return def
	case d < 0:
		return 0
	}
	return d
}

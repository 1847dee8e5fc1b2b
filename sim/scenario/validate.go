package scenario

import (
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/restartsim/restartsim/internal/leasetiming"
	"github.com/restartsim/restartsim/internal/throttlespec"
)

// Known values, for validation and messages.
var (
	Profiles     = []string{"aws-2026", "aws-documented", "unlimited"}
	Checkpoints  = []string{CheckpointAnnotation, CheckpointCompact, CheckpointNone}
	Actions      = []string{ActionAWSDrift, ActionAWSFault, ActionChurn, ActionContainerRestart, ActionRestart, ActionWait}
	RestartModes = []string{RestartCrash, RestartGraceful, RestartLeaderHandover}
	Awaits       = []string{AwaitLeader, AwaitNone}
	ChurnKinds   = []string{ChurnAddTGB, ChurnMixed, ChurnRecreateService, ChurnRemoveTGB, ChurnReplaceNode, ChurnRotate, ChurnScale, ChurnStaleGate}
	DriftKinds   = []string{DriftRemoveTarget, DriftRevokeIngress}
	FaultKinds   = []string{FaultErrors, FaultLatency, FaultLimit, FaultOutage, FaultProfile}
	// Mutants are the reference controller's test-only reintroduced bugs and slowdowns; a test in package
	// sim keeps the list equal to controller.KnownMutants (the parser does not import the controller).
	Mutants = []string{"defer-drift", "no-clear-on-register", "no-gate-holdback", "no-reset-before-mutation", "save-before-register", "skip-after-cleanup", "slow-early-exit", "slow-start", "stale-gate-read"}
	// delayMutants are the Mutants that take a mutantDelay.
	delayMutants = []string{"slow-early-exit", "slow-start"}
	// AWSServices are the services an outage can target.
	AWSServices = []string{"ec2", "elbv2"}
)

// Upper bounds that keep a typo from asking for the impossible.
const (
	maxTGBs          = 100000
	maxPodsPerSvc    = 1000 // fakeaws' targets-per-group quota
	maxReplicas      = 10
	maxRepeats       = 1000
	maxTimeScale     = 10000
	maxConcurrency   = 1024
	maxScenarioDelay = 7 * 24 * time.Hour
)

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	metricName   = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName    = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// stepFields lists which step fields each action accepts (besides action/at/after/within).
var stepFields = map[string][]string{
	ActionRestart:          {"mode", "await", "downtime", "stripCheckpoints"},
	ActionChurn:            {"kind", "services", "duration", "count"},
	ActionContainerRestart: {"pods"},
	ActionAWSFault:         {"fault", "profile", "limits", "operation", "rate", "code", "awsServices", "latency", "duration"},
	ActionAWSDrift:         {"kind", "count"},
	ActionWait:             {"duration"},
}

var commonStepFields = []string{"action", "at", "after", "within"}

// TemplateData is what an external controller's command and env templates can use.
type TemplateData struct {
	Kubeconfig      string
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

// validator collects path-tagged problems; given reports whether the file set a path.
type validator struct {
	errs  ErrorList
	given func(path string) bool
}

func (v *validator) add(path, format string, args ...any) {
	v.errs = append(v.errs, &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
}

func (v *validator) oneOf(path, got string, allowed []string) {
	if !slices.Contains(allowed, got) {
		v.add(path, "%q is not one of %s", got, strings.Join(allowed, ", "))
	}
}

// count checks an integer the defaults fill when unset: a given value must be within [lo, hi].
func (v *validator) count(path string, got, lo, hi int) {
	if (v.given(path) || got != 0) && (got < lo || got > hi) {
		v.add(path, "must be between %d and %d, got %d", lo, hi, got)
	}
}

func (v *validator) share(path string, got float64) {
	if got < 0 || got > 1 {
		v.add(path, "must be a fraction between 0 and 1, got %g", got)
	}
}

func (v *validator) duration(path string, d *Duration) {
	if d != nil && (d.Duration < 0 || d.Duration > maxScenarioDelay) {
		v.add(path, "must be between 0 and %s, got %s", maxScenarioDelay, d.Duration)
	}
}

// Validate checks a defaulted scenario. given reports whether the file set a field path (so that an
// explicit zero can be told from an unset one); nil means "only non-zero values were given".
func Validate(s *Scenario, given func(path string) bool) ErrorList {
	if given == nil {
		given = func(string) bool { return false }
	}
	v := &validator{given: given}
	if s.APIVersion != APIVersion {
		v.add("apiVersion", "must be %q, got %q", APIVersion, s.APIVersion)
	}
	if s.Kind != Kind {
		v.add("kind", "must be %q, got %q", Kind, s.Kind)
	}
	if !dnsLabel.MatchString(s.Name) || len(s.Name) > 63 {
		v.add("name", "must be a lowercase DNS label (a-z, 0-9, -; at most 63), got %q", s.Name)
	}
	if s.TimeScale <= 0 || s.TimeScale > maxTimeScale || (given("timeScale") && s.TimeScale == 0) {
		v.add("timeScale", "must be greater than 0 and at most %d, got %g", maxTimeScale, s.TimeScale)
	}
	v.count("repeats", s.Repeats, 1, maxRepeats)
	if s.Cluster.Envtest != nil && s.Cluster.Kubeconfig != nil {
		v.add("cluster", "set one of envtest and kubeconfig, not both")
	}
	v.validateCRDs(&s.Cluster)
	switch s.Cluster.EndpointSlices {
	case "", EndpointSlicesSimulated:
	case EndpointSlicesCluster: // needs a kubeconfig cluster, which --kubeconfig may give: checked by the run
	default:
		v.add("cluster.endpointSlices", "must be %q or %q, got %q", EndpointSlicesSimulated, EndpointSlicesCluster, s.Cluster.EndpointSlices)
	}
	v.validateAWS(&s.AWS)
	v.validateFleet(&s.Fleet)
	names := v.validateController(s)
	v.validateAB(s)
	v.validateTimeline(s)
	v.validateThresholds(s.Thresholds, names)
	v.validateGate(s.Gate, names)
	return v.errs
}

func (v *validator) validateAWS(a *AWS) {
	v.oneOf("aws.profile", a.Profile, Profiles)
	v.oneOf("aws.warmupProfile", a.WarmupProfile, Profiles)
	v.duration("aws.healthyAfter", a.HealthyAfter)
	v.duration("aws.deregistrationDelay", a.DeregistrationDelay)
	for _, k := range sortedKeys(a.Overrides) {
		v.limit(fmt.Sprintf("aws.overrides[%s]", k), k, a.Overrides[k])
	}
	for _, k := range sortedKeys(a.Latency) {
		v.latency(fmt.Sprintf("aws.latency[%s]", k), a.Latency[k])
	}
	for i, f := range a.Faults {
		p := fmt.Sprintf("aws.faults[%d]", i)
		if f.Operation == "" {
			v.add(p+".operation", "required (an operation name or \"*\")")
		}
		if f.Rate <= 0 || f.Rate > 1 {
			v.add(p+".rate", "must be in (0, 1], got %g", f.Rate)
		}
	}
}

func (v *validator) limit(path, key string, l Limit) {
	if strings.TrimSpace(key) == "" {
		v.add(path, "operation or category name is empty")
	}
	if l.Burst < 0 {
		v.add(path+".burst", "must not be negative, got %d", l.Burst)
	}
	if l.Rate >= 0 && l.Burst == 0 && l.Rate > 0 {
		v.add(path+".burst", "must be at least 1 when rate is positive")
	}
}

func (v *validator) latency(path string, l Latency) {
	if l.Base.Duration < 0 || l.Base.Duration > time.Hour {
		v.add(path+".base", "must be between 0 and 1h, got %s", l.Base.Duration)
	}
	if l.Jitter.Duration < 0 || l.Jitter.Duration > time.Hour {
		v.add(path+".jitter", "must be between 0 and 1h, got %s", l.Jitter.Duration)
	}
}

func (v *validator) validateFleet(f *Fleet) {
	if f.TargetGroupBindings < 1 || f.TargetGroupBindings > maxTGBs {
		v.add("fleet.targetGroupBindings", "must be between 1 and %d, got %d", maxTGBs, f.TargetGroupBindings)
	}
	v.count("fleet.namespaces", f.Namespaces, 1, max(1, f.TargetGroupBindings))
	v.count("fleet.podsPerService", f.PodsPerService, 1, maxPodsPerSvc)
	v.count("fleet.nodes", f.Nodes, 1, maxTGBs)
	v.count("fleet.concurrency", f.Concurrency, 1, maxConcurrency)
	v.duration("fleet.containerRestartDelay", f.ContainerRestartDelay)
	v.share("fleet.instanceShare", f.InstanceShare)
	v.share("fleet.readinessGateShare", f.ReadinessGateShare)
	v.share("fleet.networkingShare", f.NetworkingShare)
}

func (v *validator) validateController(s *Scenario) []string {
	c := &s.Controller
	v.count("controller.replicas", c.Replicas, 1, maxReplicas)
	v.count("controller.warmupWorkers", c.WarmupWorkers, 1, 1000)
	if c.WarmupWorkers > 0 && (c.Replicas > 1 || c.HasExternal()) {
		v.add("controller.warmupWorkers", "needs one reference controller replica (replicas 1, no external): a standby would keep the warm-up workers into the measured phase")
	}
	switch {
	case c.External != nil && len(c.Strategies) > 0:
		v.add("controller", "set strategies (reference controller) or external, not both")
	case c.External == nil && len(c.Strategies) == 0:
		v.add("controller.strategies", "required: at least one strategy (or controller.external)")
	}
	seen := map[string]bool{}
	for i, st := range c.Strategies {
		p := fmt.Sprintf("controller.strategies[%d]", i)
		if !dnsLabel.MatchString(st.Name) || len(st.Name) > 63 {
			v.add(p+".name", "must be a lowercase DNS label, got %q", st.Name)
		} else if seen[st.Name] {
			v.add(p+".name", "duplicate strategy name %q", st.Name)
		}
		seen[st.Name] = true
		if st.External != nil {
			v.validateStrategyExternal(s, st, p)
			continue
		}
		v.oneOf(p+".checkpoint", st.Checkpoint, Checkpoints)
		for name, d := range map[string]*Duration{
			"deferralDelay": st.DeferralDelay, "deferralJitter": st.DeferralJitter, "requeueDuration": st.RequeueDuration,
			"targetHealthCacheTTL": st.TargetHealthCacheTTL, "securityGroupCacheTTL": st.SecurityGroupCacheTTL, "syncPeriod": st.SyncPeriod,
			"driftCheckInterval": st.DriftCheckInterval, "resumeInterval": st.ResumeInterval,
		} {
			v.duration(p+"."+name, d)
		}
		if st.ResumeInterval != nil {
			switch {
			case st.Resume == nil || !*st.Resume:
				v.add(p+".resumeInterval", "applies only with resume: true")
			case st.ResumeInterval.Duration == 0:
				// 0 would leave the controller's default unscaled by timeScale.
				v.add(p+".resumeInterval", "must be positive")
			}
		}
		v.validateLeaderElection(s, st, p)
		v.count(p+".maxConcurrentReconciles", st.MaxConcurrentReconciles, 1, 1000)
		v.count(p+".maxAttempts", st.MaxAttempts, 1, 100)
		// The same parse, with the same time scale, as the controller's when the run starts it.
		if st.External == nil && s.TimeScale > 0 {
			if _, err := throttlespec.Scaled(st.Throttle, s.TimeScale); err != nil {
				v.add(p+".throttle", "%v", err)
			}
		}

		if st.Mutant != "" {
			v.oneOf(p+".mutant", st.Mutant, Mutants)
		}
		if d := st.MutantDelay; d != nil {
			v.duration(p+".mutantDelay", d)
			switch {
			case !slices.Contains(delayMutants, st.Mutant):
				v.add(p+".mutantDelay", "applies only with mutant %s", strings.Join(delayMutants, " or "))
			case d.Duration == 0:
				v.add(p+".mutantDelay", "must be positive")
			}
		}
		if st.Binary == "" && len(st.Args) > 0 {
			v.add(p+".args", "applies only with binary")
		}
		for j, a := range st.Args {
			v.template(fmt.Sprintf("%s.args[%d]", p, j), a)
		}
		if st.Binary != "" && st.ElectsLeader(c.Replicas) && s.TimeScale != 1 {
			v.add(p+".binary", "with leader election needs timeScale 1: an out-of-process controller's default leader-election timers are not scaled")
		}
	}
	if e := c.External; e != nil {
		v.validateExternal(e, "controller.external")
		if s.TimeScale != 1 {
			v.add("timeScale", "must be 1 with controller.external: an external controller's timers run on the wall clock, so the simulation cannot speed them up (got %g)", s.TimeScale)
		}
		if !dnsLabel.MatchString(e.Name) {
			v.add("controller.external.name", "must be a lowercase DNS label, got %q", e.Name)
		}
	}
	if c.RegistrationRate < 0 || c.RegistrationRate > 1e6 || (v.given("controller.registrationRate") && c.RegistrationRate == 0) {
		v.add("controller.registrationRate", "must be a positive number of calls per second (at most 1e6), got %g", c.RegistrationRate)
	}
	return s.StrategyNames()
}

// validateStrategyExternal checks a strategy that runs an external controller: it takes only a
// name besides external, and the wall clock.
// validateLeaderElection checks the lease timings as the replicas will run them. Set or not, they
// are scenario time and divided by the time scale alike, so client-go's rule holds in scenario time.
func (v *validator) validateLeaderElection(s *Scenario, st Strategy, p string) {
	set := false
	for name, d := range map[string]*Duration{"leaseDuration": st.LeaseDuration, "renewDeadline": st.RenewDeadline, "retryPeriod": st.RetryPeriod} {
		if d == nil {
			continue
		}
		set = true
		if d.Duration <= 0 {
			v.add(p+"."+name, "must be positive, got %v", d.Duration)
			return
		}
	}
	if (set || st.ReleaseOnCancel != nil || st.Warmup != nil) && !st.ElectsLeader(s.Controller.Replicas) {
		v.add(p, "leaseDuration, renewDeadline, retryPeriod, releaseOnCancel and warmup apply only with leader election (leaderElection: true, or replicas > 1)")
		return
	}
	if err := leasetiming.Validate(st.LeaseTimings()); set && err != nil {
		v.add(p+".leaseDuration", "%v", err)
	}
}

func (v *validator) validateStrategyExternal(s *Scenario, st Strategy, p string) {
	for _, f := range sortedKeys(fieldsOf(reflect.TypeOf(Strategy{}))) {
		if f != "name" && f != "external" && v.given(p+"."+f) {
			v.add(p+"."+f, "does not apply to an external controller (a strategy with external takes only name)")
		}
	}
	if v.given(p+".external.name") && st.External.Name != st.Name {
		v.add(p+".external.name", "is the strategy's name (%q); leave it unset", st.Name)
	}
	v.validateExternal(st.External, p+".external")
	if s.TimeScale != 1 {
		v.add("timeScale", "must be 1 with an external controller (%s): its timers run on the wall clock, so the simulation cannot speed them up (got %g)", p, s.TimeScale)
	}
}

func (v *validator) validateExternal(e *External, p string) {
	if len(e.Command) == 0 || strings.TrimSpace(e.Command[0]) == "" {
		v.add(p+".command", "required: the controller's argv, e.g. [/path/to/controller, --kubeconfig={{.Kubeconfig}}]")
	}
	for i, arg := range e.Command {
		v.template(fmt.Sprintf("%s.command[%d]", p, i), arg)
	}
	for _, k := range sortedKeys(e.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.add(fmt.Sprintf("%s.env[%s]", p, k), "invalid variable name")
		}
		v.template(fmt.Sprintf("%s.env[%s]", p, k), e.Env[k])
	}
	if !strings.HasPrefix(e.MetricsPath, "/") {
		v.add(p+".metricsPath", "must start with /, got %q", e.MetricsPath)
	}
	if _, err := regexp.Compile(e.CacheSyncedLog); err != nil {
		v.add(p+".cacheSyncedLog", "not a regular expression: %v", err)
	}
	if l := e.Lease; l != nil {
		if !dnsSubdomain.MatchString(l.Name) || len(l.Name) > 253 {
			v.add(p+".lease.name", "must be a Lease name (a lowercase DNS subdomain), got %q", l.Name)
		}
		v.template(p+".lease.namespace", l.Namespace)
	}
	v.metricSelector(p+".queueDepth", e.QueueDepth)
	v.metricSelector(p+".deferredQueueDepth", e.DeferredQueueDepth)
}

func (v *validator) metricSelector(p string, m *MetricSelector) {
	if m == nil {
		return
	}
	if !metricName.MatchString(m.Metric) {
		v.add(p+".metric", "must be a Prometheus metric name, got %q", m.Metric)
	}
	for _, k := range sortedKeys(m.Labels) {
		if !labelName.MatchString(k) {
			v.add(fmt.Sprintf("%s.labels[%s]", p, k), "not a Prometheus label name")
		}
	}
}

// validateCRDs checks that every extra CRD path exists.
func (v *validator) validateCRDs(c *Cluster) {
	for i, path := range c.CRDs {
		p := fmt.Sprintf("cluster.crds[%d]", i)
		if strings.TrimSpace(path) == "" {
			v.add(p, "empty path")
			continue
		}
		if _, err := os.Stat(path); err != nil {
			v.add(p, "%v", err)
		}
	}
}

func (v *validator) template(path, text string) {
	t, err := template.New(path).Option("missingkey=error").Parse(text)
	if err != nil {
		v.add(path, "bad template: %v", err)
		return
	}
	if err := t.Execute(io.Discard, TemplateData{}); err != nil {
		v.add(path, "bad template: %v", err)
	}
}

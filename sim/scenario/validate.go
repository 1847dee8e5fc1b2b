package scenario

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Known values, for validation and messages.
var (
	Profiles     = []string{"aws-2026", "aws-documented", "unlimited"}
	Actions      = []string{ActionAWSDrift, ActionAWSFault, ActionChurn, ActionContainerRestart, ActionRestart, ActionWait}
	RestartModes = []string{RestartCrash, RestartGraceful, RestartLeaderHandover}
	Awaits       = []string{AwaitLeader, AwaitNone}
	ChurnKinds   = []string{ChurnAddTGB, ChurnBackendPort, ChurnBackendTargetPort, ChurnIngressAnnotation, ChurnIngressRule, ChurnMixed,
		ChurnCreate, ChurnDelete, ChurnDeleteNodes, ChurnPatch, ChurnRecreateService, ChurnRemoveTGB, ChurnReplaceNode, ChurnRotate, ChurnScale, ChurnSecretContent, ChurnStaleGate}
	DriftKinds = []string{DriftRemoveTarget, DriftRevokeIngress}
	FaultKinds = []string{FaultErrors, FaultLatency, FaultLimit, FaultOutage, FaultProfile}
	// Mutants are the reference controller's test-only reintroduced bugs and slowdowns; a test in package
	// sim keeps the list equal to controller.KnownMutants (the parser does not import the controller).
	Mutants = []string{"defer-drift", "no-clear-on-register", "no-gate-holdback", "no-reset-before-mutation", "save-before-register", "secret-blind-model", "skip-after-cleanup", "slow-early-exit", "slow-start", "stale-gate-read"}
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
	maxConcurrency   = 1024
	maxScenarioDelay = 7 * 24 * time.Hour
)

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// validator collects path-tagged problems; given reports whether the file set a path.
type validator struct {
	errs  ErrorList
	given func(path string) bool
	// groups are the object groups' sizes and the objects made so far, as the timeline's steps
	// (in order) leave them.
	groups map[string]*groupSize
}

func (v *validator) addf(path, format string, args ...any) { v.errs.Addf(path, format, args...) }

func (v *validator) oneOf(path, got string, allowed []string) {
	if !slices.Contains(allowed, got) {
		v.addf(path, "%q is not one of %s", got, strings.Join(allowed, ", "))
	}
}

// count checks an integer the defaults fill when unset: a given value must be within [lo, hi].
func (v *validator) count(path string, got, lo, hi int) {
	if (v.given(path) || got != 0) && (got < lo || got > hi) {
		v.addf(path, "must be between %d and %d, got %d", lo, hi, got)
	}
}

func (v *validator) share(path string, got float64) {
	if !(got >= 0 && got <= 1) { // NaN too
		v.addf(path, "must be a fraction between 0 and 1, got %g", got)
	}
}

func (v *validator) duration(path string, d *Duration) {
	if d != nil && (d.Duration < 0 || d.Duration > maxScenarioDelay) {
		v.addf(path, "must be between 0 and %s, got %s", maxScenarioDelay, d.Duration)
	}
}

// Validate checks a defaulted scenario. given reports whether the file set a field path (so that an
// explicit zero can be told from an unset one); nil means "only non-zero values were given".
func Validate(s *Scenario, given func(path string) bool) ErrorList {
	errs, _ := validate(s, given)
	return errs
}

// validate is Validate returning also the object groups and object churn steps it compiled (nil
// when there are none, or problems).
func validate(s *Scenario, given func(path string) bool) (ErrorList, *CompiledObjects) {
	if given == nil {
		given = func(string) bool { return false }
	}
	v := &validator{given: given}
	if s.APIVersion != APIVersion {
		v.addf("apiVersion", "must be %q, got %q", APIVersion, s.APIVersion)
	}
	if s.Kind != Kind {
		v.addf("kind", "must be %q, got %q", Kind, s.Kind)
	}
	if !dnsLabel.MatchString(s.Name) || len(s.Name) > 63 {
		v.addf("name", "must be a lowercase DNS label (a-z, 0-9, -; at most 63), got %q", s.Name)
	}
	v.validateClock(s)
	v.count("repeats", s.Repeats, 1, maxRepeats)
	if s.Cluster.Envtest != nil && s.Cluster.Kubeconfig != nil {
		v.addf("cluster", "set one of envtest and kubeconfig, not both")
	}
	v.validateCRDs(&s.Cluster)
	switch s.Cluster.EndpointSlices {
	case "", EndpointSlicesSimulated:
	case EndpointSlicesCluster: // needs a kubeconfig cluster, which --kubeconfig may give: checked by the run
	default:
		v.addf("cluster.endpointSlices", "must be %q or %q, got %q", EndpointSlicesSimulated, EndpointSlicesCluster, s.Cluster.EndpointSlices)
	}
	v.validateNodes(&s.Cluster)
	v.validateAWS(&s.AWS)
	v.validateFleet(&s.Fleet)
	if s.Cluster.EndpointSlices == EndpointSlicesCluster && s.Fleet.DuplicateEndpointShare > 0 {
		v.addf("fleet.duplicateEndpointShare", "needs cluster.endpointSlices simulated: the cluster's EndpointSlice controller writes one set of slices per Service")
	}
	names := v.validateController(s)
	v.validateAB(s)
	if !slices.ContainsFunc(s.Timeline, func(st Step) bool { return st.Action != "" }) {
		// Waits alone measure nothing (the defaults end every timeline with a steadyState wait).
		v.addf("timeline", "required: at least one action (%s), e.g. {action: restart}", strings.Join(Actions, ", "))
	}
	v.validateTimeline(s)
	v.validateThresholds(s, names)
	v.validateGate(s.Gate, names)
	v.validatePredict(s.Predict)
	if !slices.ContainsFunc(v.errs, func(e *FieldError) bool { return strings.HasPrefix(e.Path, "cluster.crds") }) {
		// Templates and conditions compile against the CRDs, which must be known to exist first;
		// every other problem is reported beside the objects' own.
		c, errs := CompileObjects(s)
		v.errs = append(v.errs, errs...)
		if len(v.errs) == 0 {
			return nil, c
		}
	}
	return v.errs, nil
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
	v.validateHostedZones(a.HostedZones)
	v.validateIAMRoles(a.IAMRoles)
	for i, f := range a.Faults {
		p := fmt.Sprintf("aws.faults[%d]", i)
		if f.Operation == "" {
			v.addf(p+".operation", "required (an operation name or \"*\")")
		}
		if f.Rate <= 0 || f.Rate > 1 {
			v.addf(p+".rate", "must be in (0, 1], got %g", f.Rate)
		}
	}
}

func (v *validator) limit(path, key string, l Limit) {
	if strings.TrimSpace(key) == "" {
		v.addf(path, "operation or category name is empty")
	}
	if l.Burst < 0 {
		v.addf(path+".burst", "must not be negative, got %d", l.Burst)
	}
	if l.Rate >= 0 && l.Burst == 0 && l.Rate > 0 {
		v.addf(path+".burst", "must be at least 1 when rate is positive")
	}
}

func (v *validator) latency(path string, l Latency) {
	if l.Base.Duration < 0 || l.Base.Duration > time.Hour {
		v.addf(path+".base", "must be between 0 and 1h, got %s", l.Base.Duration)
	}
	if l.Jitter.Duration < 0 || l.Jitter.Duration > time.Hour {
		v.addf(path+".jitter", "must be between 0 and 1h, got %s", l.Jitter.Duration)
	}
}

func (v *validator) validateFleet(f *FleetSpec) {
	before := len(v.errs)
	switch {
	case len(f.Objects) == 0 && (f.TargetGroupBindings < 1 || f.TargetGroupBindings > maxTGBs):
		v.addf("fleet.targetGroupBindings", "must be between 1 and %d (0 only with fleet.objects), got %d", maxTGBs, f.TargetGroupBindings)
	case f.TargetGroupBindings < 0 || f.TargetGroupBindings > maxTGBs:
		v.addf("fleet.targetGroupBindings", "must be between 0 and %d, got %d", maxTGBs, f.TargetGroupBindings)
	}
	v.count("fleet.namespaces", f.Namespaces, 1, max(1, f.TargetGroupBindings+f.objectCount()))
	v.count("fleet.podsPerService", f.PodsPerService, 1, maxPodsPerSvc)
	v.count("fleet.nodes", f.Nodes, 1, maxTGBs)
	v.count("fleet.concurrency", f.Concurrency, 1, maxConcurrency)
	v.duration("fleet.containerRestartDelay", f.ContainerRestartDelay)
	v.share("fleet.instanceShare", f.InstanceShare)
	v.share("fleet.readinessGateShare", f.ReadinessGateShare)
	v.share("fleet.networkingShare", f.NetworkingShare)
	v.share("fleet.targetGroupProtocolShare", f.TargetGroupProtocolShare)
	v.share("fleet.assumeRoleShare", f.AssumeRoleShare)
	v.share("fleet.namedPortShare", f.NamedPortShare)
	v.share("fleet.duplicateEndpointShare", f.DuplicateEndpointShare)
	v.validateIngresses(f)
	if len(v.errs) == before { // the plan's checks would repeat a problem found already
		v.validatePlan(f)
	}
}

// fleetFields maps the workload spec's field names onto the scenario's.
var fleetFields = map[string]string{
	"tgbs": "targetGroupBindings", "namespaces": "namespaces", "podsPerService": "podsPerService", "nodes": "nodes",
	"instanceShare": "instanceShare", "readinessGateShare": "readinessGateShare", "networkingShare": "networkingShare",
	"targetGroupProtocolShare": "targetGroupProtocolShare", "assumeRoleShare": "assumeRoleShare", "namedPortShare": "namedPortShare",
	"duplicateEndpointShare": "duplicateEndpointShare",
}

// validatePlan checks that the fleet can be planned (its pods and nodes fit in the VPC's
// addresses, its instance bindings in the NodePorts): what the run would otherwise find only
// once the API server and fakeaws were up.
func (v *validator) validatePlan(f *FleetSpec) {
	for _, err := range leafErrors(f.WorkloadSpec().Validate()) {
		field, msg, ok := strings.Cut(err.Error(), ": ")
		switch name, known := fleetFields[field]; {
		case !ok:
			v.addf("fleet", "%s", err)
		case known:
			v.addf("fleet."+name, "%s", msg)
		case strings.HasPrefix(field, "ingresses."):
			v.addf("fleet."+field, "%s", msg)
		default:
			v.addf("fleet", "%s", err)
		}
	}
}

// leafErrors flattens errors.Join's trees into their single errors.
func leafErrors(err error) []error {
	if err == nil {
		return nil
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []error{err}
	}
	var out []error
	for _, e := range joined.Unwrap() {
		out = append(out, leafErrors(e)...)
	}
	return out
}

// validateCRDs checks that every extra CRD path exists.
func (v *validator) validateNodes(c *Cluster) {
	if c.Scheduler && c.Kubeconfig != nil {
		v.addf("cluster.scheduler", "starts kube-scheduler beside envtest; a kubeconfig cluster runs its own")
	}
	if n := c.InstanceNodes; n != nil {
		v.duration("cluster.instanceNodes.joinDelay", n.JoinDelay)
		v.duration("cluster.instanceNodes.removeAfter", n.RemoveAfter)
	}
}

func (v *validator) validateCRDs(c *Cluster) {
	for i, path := range c.CRDs {
		p := fmt.Sprintf("cluster.crds[%d]", i)
		if strings.TrimSpace(path) == "" {
			v.addf(p, "empty path")
			continue
		}
		if _, err := os.Stat(path); err != nil {
			v.addf(p, "%v", err)
		}
	}
}

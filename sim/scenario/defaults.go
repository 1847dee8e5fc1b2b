package scenario

import (
	"fmt"
	"time"

	"github.com/restartsim/restartsim/sim/workload"
)

// Defaults used when a field is unset.
const (
	DefaultRegion                = "us-west-2"
	DefaultProfile               = "aws-documented"
	DefaultHealthyAfter          = 10 * time.Second
	DefaultRecreateDown          = 10 * time.Second
	DefaultDeregistrationDelay   = 300 * time.Second
	DefaultErrorCode             = "ServiceUnavailable"
	DefaultPodsPerService        = workload.DefaultPodsPerService
	DefaultConcurrency           = workload.DefaultConcurrency
	DefaultContainerRestartDelay = 10 * time.Second
	DefaultWithin                = 10 * time.Second
	DefaultWaitTimeout           = 10 * time.Minute
	DefaultChurnServices         = 10
	DefaultExternalName          = "external"
	DefaultMetricsPath           = "/metrics"
	DefaultCacheSyncedLog        = "Starting workers"
	DefaultLeaseNamespace        = "{{.Namespace}}"
	DefaultQueueDepthMetric      = "workqueue_depth"
	DefaultDeferredDepthMetric   = "tgb_deferred_queue_depth"
	// DefaultRegistrationRate is LBC's client-side RegisterTargets throttle (4/s), which the
	// reference controller shares.
	DefaultRegistrationRate = 4.0
	// DefaultIngressGroupSize and DefaultServicesPerIngress are fleet.ingresses' defaults.
	DefaultIngressGroupSize   = workload.DefaultIngressGroupSize
	DefaultServicesPerIngress = workload.DefaultServicesPerIngress
	tgbsPerNamespace          = 500
)

// SetDefaults fills every unset field with its documented default. Parse calls it after decoding
// and before validation with given reporting the field paths the file set, so an explicit zero
// stays for validation to reject; nil means "a zero value is unset".
func SetDefaults(s *Scenario, given func(path string) bool) {
	if given == nil {
		given = func(string) bool { return false }
	}
	unset := func(path string, zero bool) bool { return zero && !given(path) }
	s.defaultClock(unset)
	if unset("repeats", s.Repeats == 0) {
		s.Repeats = 1
	}
	if s.Cluster.Envtest == nil && s.Cluster.Kubeconfig == nil {
		s.Cluster.Envtest = &Envtest{}
	}
	if n := s.Cluster.InstanceNodes; n != nil {
		if n.JoinDelay == nil {
			n.JoinDelay = D(15 * time.Second)
		}
		if n.RemoveAfter == nil {
			n.RemoveAfter = D(5 * time.Second)
		}
	}
	setAWSDefaults(&s.AWS)
	setFleetDefaults(&s.Fleet, unset)
	c := &s.Controller
	if unset("controller.replicas", c.Replicas == 0) {
		c.Replicas = 1
	}
	for i := range c.Strategies {
		st := &c.Strategies[i]
		if st.External != nil {
			setExternalDefaults(st.External, st.Name)
			continue
		}
		if st.InProcess != nil {
			setInProcessDefaults(st.InProcess)
			continue
		}
		if st.Checkpoint == "" {
			st.Checkpoint = CheckpointAnnotation
		}
	}
	if c.External != nil {
		setExternalDefaults(c.External, DefaultExternalName)
	}
	if s.AB != nil {
		setABDefaults(s.AB)
	}
	for i := range s.Timeline {
		p := fmt.Sprintf("timeline[%d].", i)
		setStepDefaults(&s.Timeline[i], func(field string, zero bool) bool { return unset(p+field, zero) })
	}
	if n := len(s.Timeline); n == 0 || s.Timeline[n-1].WaitFor != WaitForSteadyState {
		s.Timeline = append(s.Timeline, Step{WaitFor: WaitForSteadyState, Timeout: D(DefaultWaitTimeout)})
	}
}

// setExternalDefaults fills an external controller's unset fields; name is its name when unset
// (a strategy's external takes the strategy's).
func setExternalDefaults(x *External, name string) {
	if x.Name == "" {
		x.Name = name
	}
	if x.MetricsPath == "" {
		x.MetricsPath = DefaultMetricsPath
	}
	if x.CacheSyncedLog == "" {
		x.CacheSyncedLog = DefaultCacheSyncedLog
	}
	if x.Lease != nil && x.Lease.Namespace == "" {
		x.Lease.Namespace = DefaultLeaseNamespace
	}
	if x.QueueDepth == nil {
		x.QueueDepth = &MetricSelector{Metric: DefaultQueueDepthMetric}
	}
	if x.DeferredQueueDepth == nil {
		x.DeferredQueueDepth = &MetricSelector{Metric: DefaultDeferredDepthMetric}
	}
}

func setAWSDefaults(a *AWS) {
	if a.Profile == "" {
		a.Profile = DefaultProfile
	}
	if a.WarmupProfile == "" {
		a.WarmupProfile = a.Profile
	}
	if a.Region == "" {
		a.Region = DefaultRegion
	}
	if a.HealthyAfter == nil {
		a.HealthyAfter = D(DefaultHealthyAfter)
	}
	if a.DeregistrationDelay == nil {
		a.DeregistrationDelay = D(DefaultDeregistrationDelay)
	}
	for i := range a.Faults {
		if a.Faults[i].Code == "" {
			a.Faults[i].Code = DefaultErrorCode
		}
	}
}

func setFleetDefaults(f *FleetSpec, unset func(string, bool) bool) {
	if unset("fleet.namespaces", f.Namespaces == 0) {
		f.Namespaces = max(1, (f.TargetGroupBindings+f.objectCount()+tgbsPerNamespace-1)/tgbsPerNamespace)
	}
	if unset("fleet.podsPerService", f.PodsPerService == 0) {
		f.PodsPerService = DefaultPodsPerService
	}
	if unset("fleet.nodes", f.Nodes == 0) {
		f.Nodes = max(workload.DefaultNodes, f.TargetGroupBindings/100)
	}
	if unset("fleet.concurrency", f.Concurrency == 0) {
		f.Concurrency = DefaultConcurrency
	}
	if f.ContainerRestartDelay == nil {
		f.ContainerRestartDelay = D(DefaultContainerRestartDelay)
	}
	if in := f.Ingresses; in != nil {
		if unset("fleet.ingresses.groupSize", in.GroupSize == 0) {
			in.GroupSize = DefaultIngressGroupSize
		}
		if unset("fleet.ingresses.servicesPerIngress", in.ServicesPerIngress == 0) {
			in.ServicesPerIngress = DefaultServicesPerIngress
		}
	}
}

func setStepDefaults(st *Step, unset func(string, bool) bool) {
	if st.At != nil && st.At.Random && st.Within == nil {
		st.Within = D(DefaultWithin)
	}
	if st.WaitFor != "" && st.Timeout == nil {
		st.Timeout = D(DefaultWaitTimeout)
	}
	switch st.Action {
	case ActionRestart:
		if st.Mode == "" {
			st.Mode = RestartCrash
		}
		if st.Await == "" {
			st.Await = AwaitLeader
		}
	case ActionChurn:
		if st.Kind == "" {
			st.Kind = ChurnMixed
		}
		if st.Kind == ChurnReplaceNode || st.Kind == ChurnDeleteNodes || IsObjectChurn(st.Kind) {
			if unset("count", st.Count == 0) {
				st.Count = 1
			}
		} else if unset("services", st.Services == 0) {
			st.Services = DefaultChurnServices
		}
		if st.Kind == ChurnRecreateService && st.Duration == nil {
			st.Duration = D(DefaultRecreateDown)
		}
	case ActionContainerRestart:
		if unset("pods", st.Pods == 0) {
			st.Pods = 1
		}
	case ActionAWSDrift:
		if st.Kind == "" {
			st.Kind = DriftRemoveTarget
		}
		if unset("count", st.Count == 0) {
			st.Count = 1
		}
	case ActionAWSFault:
		if st.Fault == FaultErrors {
			if st.Operation == "" {
				st.Operation = "*"
			}
			if st.Code == "" {
				st.Code = DefaultErrorCode
			}
		}
	}
}

// StrategyNames returns the names of the runs: each strategy (and an A/B baseline side), or the
// external controller.
func (s *Scenario) StrategyNames() []string {
	out := s.Controller.strategyNames()
	if s.AB != nil {
		out = append(out, BaselineName(s.AB.Strategy))
	}
	return out
}

// HasExternal reports whether any run of the scenario is an external controller.
func (c *Controller) HasExternal() bool {
	if c.External != nil {
		return true
	}
	for _, st := range c.Strategies {
		if st.External != nil {
			return true
		}
	}
	return false
}

func (c *Controller) strategyNames() []string {
	if c.External != nil {
		return []string{c.External.Name}
	}
	out := make([]string, len(c.Strategies))
	for i, st := range c.Strategies {
		out[i] = st.Name
	}
	return out
}

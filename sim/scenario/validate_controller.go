package scenario

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/internal/leasetiming"
	"github.com/restartsim/restartsim/internal/throttlespec"
)

var (
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
	metricName   = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelName    = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// validateController checks the controller section and returns the names of the runs, which
// thresholds and gate rules refer to.
func (v *validator) validateController(s *Scenario) []string {
	c := &s.Controller
	v.count("controller.replicas", c.Replicas, 1, maxReplicas)
	v.count("controller.warmupWorkers", c.WarmupWorkers, 1, 1000)
	if c.WarmupWorkers > 0 && (c.Replicas > 1 || c.HasExternal()) {
		v.addf("controller.warmupWorkers", "needs one reference controller replica (replicas 1, no external): a standby would keep the warm-up workers into the measured phase")
	}
	switch {
	case c.External != nil && len(c.Strategies) > 0:
		v.addf("controller", "set strategies (reference controller) or external, not both")
	case c.External == nil && len(c.Strategies) == 0:
		v.addf("controller.strategies", "required: at least one strategy (or controller.external)")
	}
	seen := map[string]bool{}
	for i, st := range c.Strategies {
		p := fmt.Sprintf("controller.strategies[%d]", i)
		if !dnsLabel.MatchString(st.Name) || len(st.Name) > 63 {
			v.addf(p+".name", "must be a lowercase DNS label, got %q", st.Name)
		} else if seen[st.Name] {
			v.addf(p+".name", "duplicate strategy name %q", st.Name)
		}
		seen[st.Name] = true
		v.validateConvergeWith(s, st, p)
		if st.External != nil {
			v.validateStrategyExternal(s, st, p)
			continue
		}
		if st.InProcess != nil {
			v.validateStrategyInProcess(s, st, p)
			continue
		}
		v.validateStrategy(s, st, p)
	}
	if e := c.External; e != nil {
		v.validateControllerExternal(s, e)
	}
	if c.RegistrationRate < 0 || c.RegistrationRate > 1e6 || (v.given("controller.registrationRate") && c.RegistrationRate == 0) {
		v.addf("controller.registrationRate", "must be a positive number of calls per second (at most 1e6), got %g", c.RegistrationRate)
	}
	return s.StrategyNames()
}

// validateConvergeWith checks a strategy's convergeWith at path p: another strategy of the
// scenario, one controller instance (the switch replaces the one instance that converged the
// fleet), and a restart in the timeline that makes the switch.
func (v *validator) validateConvergeWith(s *Scenario, st Strategy, p string) {
	name := st.ConvergeWith
	if name == "" {
		return
	}
	p += ".convergeWith"
	var have []string
	found := false
	for _, o := range s.Controller.Strategies {
		have = append(have, o.Name)
		found = found || o.Name == name
	}
	switch {
	case name == st.Name:
		v.addf(p, "names the strategy itself; name another strategy, whose controller converges the fleet before the restart")
	case !found:
		v.addf(p, "unknown strategy %q (have: %s)", name, strings.Join(have, ", "))
	case s.AB != nil && name == s.AB.Strategy:
		v.addf(p, "names %q, which ab compares as two builds; name a strategy that runs one build", name)
	}
	if s.Controller.Replicas > 1 {
		v.addf(p, "needs controller.replicas 1 (got %d): the restart replaces the one instance that converged the fleet", s.Controller.Replicas)
	}
	if !slices.ContainsFunc(s.Timeline, func(step Step) bool { return step.Action == ActionRestart }) {
		v.addf(p, "needs a restart in the timeline: the first restart starts this strategy's controller in place of %q's", name)
	}
}

// validateStrategy checks a reference controller strategy at path p.
func (v *validator) validateStrategy(s *Scenario, st Strategy, p string) {
	v.validateKnobs(st, p)
	if st.ModelCheckpoint == ModelCheckpointModel && s.Fleet.Ingresses == nil {
		v.addf(p+".modelCheckpoint", "model needs a load balancer side in the fleet (fleet.ingresses)")
	}
	if st.ResumeInterval != nil {
		switch {
		case st.Resume == nil || !*st.Resume:
			v.addf(p+".resumeInterval", "applies only with resume: true")
		case st.ResumeInterval.Duration == 0:
			// 0 would leave the controller's default unscaled by timeScale.
			v.addf(p+".resumeInterval", "must be positive")
		}
	}
	v.validateLeaderElection(s, st, p)
	// The same parse, with the same time scale, as the controller's when the run starts it.
	if s.clockValid() {
		if _, err := throttlespec.Scaled(st.Throttle, s.Clock().Scale()); err != nil {
			v.addf(p+".throttle", "%v", err)
		}
	}
	v.validateMutant(st, p)
	if st.Binary == "" && len(st.Args) > 0 {
		v.addf(p+".args", "applies only with binary")
	}
	for j, a := range st.Args {
		v.template(fmt.Sprintf("%s.args[%d]", p, j), a)
	}
	if onWall, _ := s.wallClock(); st.Binary != "" && st.ElectsLeader(s.Controller.Replicas) && !onWall {
		v.addf(p+".binary", "with leader election needs timeScale 1: an out-of-process controller's default leader-election timers are not scaled")
	}
}

// validateMutant checks a strategy's mutant and the delay only the slowdown mutants take.
func (v *validator) validateMutant(st Strategy, p string) {
	if st.Mutant != "" {
		v.oneOf(p+".mutant", st.Mutant, Mutants)
	}
	if d := st.MutantDelay; d != nil {
		switch {
		case !slices.Contains(delayMutants, st.Mutant):
			v.addf(p+".mutantDelay", "applies only with mutant %s", strings.Join(delayMutants, " or "))
		case d.Duration == 0:
			v.addf(p+".mutantDelay", "must be positive")
		}
	}
}

// validateControllerExternal checks controller.external, which replaces the strategies.
func (v *validator) validateControllerExternal(s *Scenario, e *External) {
	v.validateExternal(e, "controller.external")
	if ok, scale := s.wallClock(); !ok {
		v.addf("timeScale", "must be 1 with controller.external: an external controller's timers run on the wall clock, so the simulation cannot speed them up (got %g)", scale)
	}
	if !dnsLabel.MatchString(e.Name) {
		v.addf("controller.external.name", "must be a lowercase DNS label, got %q", e.Name)
	}
}

// validateLeaderElection checks the lease timings as the replicas will run them. Set or not, they
// are scenario time and divided by the time scale alike, so client-go's rule holds in scenario time.
func (v *validator) validateLeaderElection(s *Scenario, st Strategy, p string) {
	set := false
	fields := reflect.ValueOf(st)
	for _, k := range knobs {
		d, _ := fields.Field(strategyFields[k.field]).Interface().(*Duration)
		if !k.leaderElection || d == nil {
			continue
		}
		set = true
		if d.Duration <= 0 {
			v.addf(p+"."+k.field, "must be positive, got %v", d.Duration)
			return
		}
	}
	if (set || st.ReleaseOnCancel != nil || st.Warmup != nil) && !st.ElectsLeader(s.Controller.Replicas) {
		v.addf(p, "leaseDuration, renewDeadline, retryPeriod, releaseOnCancel and warmup apply only with leader election (leaderElection: true, or replicas > 1)")
		return
	}
	if err := leasetiming.Validate(st.LeaseTimings()); set && err != nil {
		v.addf(p+".leaseDuration", "%v", err)
	}
}

// validateStrategyExternal checks a strategy that runs an external controller: it takes only a
// name besides external, and the wall clock.
func (v *validator) validateStrategyExternal(s *Scenario, st Strategy, p string) {
	for _, f := range sortedKeys(fieldsOf(reflect.TypeOf(Strategy{}))) {
		if f != "name" && f != "external" && f != "convergeWith" && v.given(p+"."+f) {
			v.addf(p+"."+f, "does not apply to an external controller (a strategy with external takes only name and convergeWith)")
		}
	}
	if v.given(p+".external.name") && st.External.Name != st.Name {
		v.addf(p+".external.name", "is the strategy's name (%q); leave it unset", st.Name)
	}
	v.validateExternal(st.External, p+".external")
	if ok, scale := s.wallClock(); !ok {
		v.addf("timeScale", "must be 1 with an external controller (%s): its timers run on the wall clock, so the simulation cannot speed them up (got %g)", p, scale)
	}
}

func (v *validator) validateExternal(e *External, p string) {
	if len(e.Command) == 0 || strings.TrimSpace(e.Command[0]) == "" {
		v.addf(p+".command", "required: the controller's argv, e.g. [/path/to/controller, --kubeconfig={{.Kubeconfig}}]")
	}
	for i, arg := range e.Command {
		v.template(fmt.Sprintf("%s.command[%d]", p, i), arg)
	}
	for _, k := range sortedKeys(e.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			v.addf(fmt.Sprintf("%s.env[%s]", p, k), "invalid variable name")
		}
		v.template(fmt.Sprintf("%s.env[%s]", p, k), e.Env[k])
	}
	if !strings.HasPrefix(e.MetricsPath, "/") {
		v.addf(p+".metricsPath", "must start with /, got %q", e.MetricsPath)
	}
	if _, err := regexp.Compile(e.CacheSyncedLog); err != nil {
		v.addf(p+".cacheSyncedLog", "not a regular expression: %v", err)
	}
	if l := e.Lease; l != nil {
		if !dnsSubdomain.MatchString(l.Name) || len(l.Name) > 253 {
			v.addf(p+".lease.name", "must be a Lease name (a lowercase DNS subdomain), got %q", l.Name)
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
		v.addf(p+".metric", "must be a Prometheus metric name, got %q", m.Metric)
	}
	for _, k := range sortedKeys(m.Labels) {
		if !labelName.MatchString(k) {
			v.addf(fmt.Sprintf("%s.labels[%s]", p, k), "not a Prometheus label name")
		}
	}
}

// template checks that text parses and executes as a command template over TemplateData.
func (v *validator) template(path, text string) {
	if _, err := RenderCommand(path, text, TemplateData{}); err != nil {
		v.addf(path, "bad template: %v", err)
	}
}

package scenario

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/results"
)

// stepFields lists which step fields each action accepts (besides action/at/after/within).
var stepFields = map[string][]string{
	ActionRestart:          {"mode", "await", "downtime", "stripCheckpoints"},
	ActionChurn:            {"kind", "services", "duration", "count", "group", "patch", "applied", "mutations"},
	ActionContainerRestart: {"pods"},
	ActionAWSFault:         {"fault", "profile", "limits", "operation", "rate", "code", "awsServices", "latency", "duration"},
	ActionAWSDrift:         {"kind", "count"},
	ActionWait:             {"duration"},
}

var commonStepFields = []string{"action", "at", "after", "within"}

func (v *validator) validateTimeline(s *Scenario) {
	var lastAt time.Duration
	for i := range s.Timeline {
		st := &s.Timeline[i]
		p := fmt.Sprintf("timeline[%d]", i)
		switch {
		case st.Action != "" && st.WaitFor != "":
			v.addf(p, "set action or waitFor, not both")
			continue
		case st.Action == "" && st.WaitFor == "":
			v.addf(p, "set action (%s) or waitFor", strings.Join(Actions, ", "))
			continue
		}
		if st.At != nil && st.After != nil {
			v.addf(p+".after", "set at or after, not both")
		}
		if st.Within != nil && (st.At == nil || !st.At.Random) {
			v.addf(p+".within", "only applies to at: random")
		}
		if st.At != nil && !st.At.Random {
			if st.At.Offset < lastAt {
				v.addf(p+".at", "%s is before an earlier step's at (%s); steps run in order", st.At.Offset, lastAt)
			}
			lastAt = st.At.Offset
		}
		v.duration(p+".after", st.After)
		v.duration(p+".within", st.Within)
		if st.WaitFor != "" {
			v.validateWaitFor(st, p)
			continue
		}
		allowed, ok := stepFields[st.Action]
		if !ok {
			v.addf(p+".action", "%q is not one of %s", st.Action, strings.Join(Actions, ", "))
			continue
		}
		v.onlyFields(p, st.Action, allowed)
		v.validateAction(s, st, p)
	}
}

// onlyFields reports fields the file set on a step that its action ignores.
func (v *validator) onlyFields(p, action string, allowed []string) {
	for _, f := range allStepFields() {
		if v.given(p+"."+f) && !slices.Contains(allowed, f) && !slices.Contains(commonStepFields, f) {
			v.addf(p+"."+f, "does not apply to action %s (it takes: %s)", action, strings.Join(allowed, ", "))
		}
	}
}

func allStepFields() []string {
	return sortedKeys(fieldsOf(typeOfStep))
}

func (v *validator) validateWaitFor(st *Step, p string) {
	if st.WaitFor != WaitForSteadyState && st.WaitFor != WaitForLeader {
		v.addf(p+".waitFor", "%q is not one of %s, %s", st.WaitFor, WaitForLeader, WaitForSteadyState)
	}
	if st.Timeout == nil || st.Timeout.Duration <= 0 {
		v.addf(p+".timeout", "must be positive")
	}
	v.duration(p+".timeout", st.Timeout)
	if st.StalledAfter != nil {
		switch {
		case st.WaitFor != WaitForSteadyState:
			v.addf(p+".stalledAfter", "applies to waitFor %s only", WaitForSteadyState)
		case st.StalledAfter.Duration <= 0:
			v.addf(p+".stalledAfter", "must be positive")
		case st.Timeout != nil && st.StalledAfter.Duration >= st.Timeout.Duration:
			v.addf(p+".stalledAfter", "%s is not shorter than the timeout (%s): it would never end the wait", st.StalledAfter.Duration, st.Timeout.Duration)
		}
		v.duration(p+".stalledAfter", st.StalledAfter)
	}
	for _, f := range allStepFields() {
		if v.given(p+"."+f) && !slices.Contains([]string{"waitFor", "timeout", "stalledAfter", "at", "after"}, f) {
			v.addf(p+"."+f, "does not apply to waitFor")
		}
	}
}

func (v *validator) validateAction(s *Scenario, st *Step, p string) {
	switch st.Action {
	case ActionRestart:
		v.oneOf(p+".mode", st.Mode, RestartModes)
		v.oneOf(p+".await", st.Await, Awaits)
		v.duration(p+".downtime", st.Downtime)
		if st.Mode == RestartLeaderHandover && s.Controller.Replicas < 2 {
			v.addf(p+".mode", "leaderHandover needs controller.replicas of at least 2, got %d", s.Controller.Replicas)
		}
	case ActionChurn:
		v.oneOf(p+".kind", st.Kind, ChurnKinds)
		switch {
		case IsObjectChurn(st.Kind):
			v.validateObjectChurn(s, st, p)
		case isIngressChurn(st.Kind):
			v.validateIngressChurn(s, st, p)
		case st.Kind == ChurnDeleteNodes:
			v.validateDeleteNodes(s, st, p)
		default:
			v.count(p+".services", st.Services, 1, s.Fleet.TargetGroupBindings)
		}
		if st.Duration != nil && st.Kind != ChurnRecreateService {
			v.addf(p+".duration", "applies to churn kind %s only", ChurnRecreateService)
		}
		v.duration(p+".duration", st.Duration)
		if st.Kind == ChurnStaleGate && s.Fleet.ReadinessGateShare == 0 {
			v.addf(p+".kind", "staleGate needs TGBs with readiness gates: set fleet.readinessGateShare above 0")
		}
		v.validateReplaceNode(s, st, p)
	case ActionContainerRestart:
		v.count(p+".pods", st.Pods, 1, s.Fleet.TargetGroupBindings*s.Fleet.PodsPerService)
	case ActionAWSDrift:
		v.oneOf(p+".kind", st.Kind, DriftKinds)
		v.count(p+".count", st.Count, 1, s.Fleet.TargetGroupBindings)
		if st.Kind == DriftRevokeIngress && s.Fleet.NetworkingShare == 0 {
			v.addf(p+".kind", "revokeIngress needs TGBs with networking rules: set fleet.networkingShare above 0")
		}
	case ActionWait:
		if st.Duration == nil || st.Duration.Duration <= 0 {
			v.addf(p+".duration", "required: a positive duration")
		}
		v.duration(p+".duration", st.Duration)
	case ActionAWSFault:
		v.validateFault(st, p)
	}
}

// validateReplaceNode checks the fields of churn kind replaceNode, which counts nodes (count), not
// services.
func (v *validator) validateReplaceNode(s *Scenario, st *Step, p string) {
	if IsObjectChurn(st.Kind) {
		return
	}
	if st.Kind == ChurnDeleteNodes {
		return
	}
	if st.Kind != ChurnReplaceNode {
		if v.given(p + ".count") {
			v.addf(p+".count", "applies to churn kind %s only (the other kinds take services)", ChurnReplaceNode)
		}
		return
	}
	if v.given(p + ".services") {
		v.addf(p+".services", "does not apply to churn kind %s (it takes count: how many nodes)", ChurnReplaceNode)
	}
	v.count(p+".count", st.Count, 1, s.Fleet.Nodes)
	switch tgbs := s.Fleet.TargetGroupBindings; {
	case s.Fleet.InstanceShare == 0:
		v.addf(p+".kind", "replaceNode needs TGBs with instance targets: set fleet.instanceShare above 0")
	case planned(tgbs, s.Fleet.InstanceShare) == 0:
		v.addf(p+".kind", "replaceNode needs TGBs with instance targets: fleet.instanceShare %g of %d TGBs plans none", s.Fleet.InstanceShare, tgbs)
	}
}

// validateDeleteNodes checks churn kind deleteNodes: count nodes of EC2 instances, which only
// cluster.instanceNodes makes.
func (v *validator) validateDeleteNodes(s *Scenario, st *Step, p string) {
	if v.given(p + ".services") {
		v.addf(p+".services", "does not apply to churn kind %s (it takes count: how many nodes)", ChurnDeleteNodes)
	}
	if st.Count < 1 {
		v.addf(p+".count", "must be at least 1, got %d", st.Count)
	}
	if s.Cluster.InstanceNodes == nil {
		v.addf(p+".kind", "deleteNodes deletes the Nodes of EC2 instances: set cluster.instanceNodes")
	}
}

func (v *validator) validateFault(st *Step, p string) {
	v.duration(p+".duration", st.Duration)
	switch st.Fault {
	case FaultProfile:
		v.oneOf(p+".profile", st.Profile, Profiles)
	case FaultLimit:
		if len(st.Limits) == 0 {
			v.addf(p+".limits", "required: operation or category → {rate, burst}")
		}
		for _, k := range sortedKeys(st.Limits) {
			v.limit(fmt.Sprintf("%s.limits[%s]", p, k), k, st.Limits[k])
		}
	case FaultErrors:
		if st.Rate <= 0 || st.Rate > 1 {
			v.addf(p+".rate", "must be in (0, 1], got %g", st.Rate)
		}
	case FaultOutage:
		if st.Duration == nil || st.Duration.Duration <= 0 {
			v.addf(p+".duration", "required for an outage: a positive duration")
		}
		for i, svc := range st.AWSServices {
			v.oneOf(fmt.Sprintf("%s.awsServices[%d]", p, i), svc, AWSServices)
		}
	case FaultLatency:
		if st.Latency == nil {
			v.addf(p+".latency", "required: {base, jitter}")
		} else {
			v.latency(p+".latency", *st.Latency)
		}
	case "":
		v.addf(p+".fault", "required: one of %s", strings.Join(FaultKinds, ", "))
	default:
		v.oneOf(p+".fault", st.Fault, FaultKinds)
	}
}

func (v *validator) validateThresholds(s *Scenario, strategies []string) {
	ts := s.Thresholds
	v.validateUnapplied(s, strategies)
	known := results.MetricNames()
	for i, t := range ts {
		p := fmt.Sprintf("thresholds[%d]", i)
		if !slices.Contains(known, t.Metric) {
			v.addf(p+".metric", "unknown metric %q (known: %s)", t.Metric, strings.Join(known, ", "))
		} else if t.Max.Duration && !strings.HasSuffix(t.Metric, "_seconds") {
			v.addf(p+".max", "%s is a count, not a duration; give a number", t.Metric)
		}
		if !v.given(p + ".max") {
			v.addf(p+".max", "required")
		} else if t.Max.Value < 0 {
			v.addf(p+".max", "must not be negative, got %g", t.Max.Value)
		}
		for j, name := range t.Strategies {
			if !slices.Contains(strategies, name) {
				v.addf(fmt.Sprintf("%s.strategies[%d]", p, j), "unknown strategy %q (have: %s)", name, strings.Join(strategies, ", "))
			}
		}
	}
}

func (v *validator) validateGate(rules []results.GateRule, strategies []string) {
	known := results.MetricNames()
	for i, g := range rules {
		p := fmt.Sprintf("gate[%d]", i)
		if !slices.Contains(known, g.Metric) {
			v.addf(p+".metric", "unknown metric %q (known: %s)", g.Metric, strings.Join(known, ", "))
		}
		if !slices.Contains(strategies, g.Strategy) {
			v.addf(p+".strategy", "unknown strategy %q (have: %s)", g.Strategy, strings.Join(strategies, ", "))
		}
		if g.RelativeTo != "" && !slices.Contains(strategies, g.RelativeTo) {
			v.addf(p+".relativeTo", "unknown strategy %q (have: %s)", g.RelativeTo, strings.Join(strategies, ", "))
		}
		if g.Max == nil && g.MaxRegression == nil {
			v.addf(p, "set max, maxRegression or both")
		}
		if g.Max != nil && *g.Max < 0 {
			v.addf(p+".max", "must not be negative")
		}
		if g.MaxRegression != nil && *g.MaxRegression < 0 {
			v.addf(p+".maxRegression", "must not be negative")
		}
		if g.Slack < 0 {
			v.addf(p+".slack", "must not be negative")
		}
	}
}

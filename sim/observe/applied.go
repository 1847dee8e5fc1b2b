package observe

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/oracle/lbexpect"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

// IngressApplied watches AWS for the Ingress-side changes it is given and keeps when each was first
// seen applied: every fact its expectations name holding at once. Such a change is a state of the
// load balancer (a rule, a target group's health check, an OIDC client secret) reached by several
// calls, not one call's targets as a target change is, so it is read from AWS's state: the time is
// the first poll that saw it, at most one poll interval after the call that completed it.
//
// A later change of the same Ingress can make an earlier one's facts untrue for good (a backend's
// new port moves its target group), so an earlier change is also applied once a later one is: the
// controller deploys the model of the current objects, which holds every change made before.
type IngressApplied struct {
	aws     LoadBalancerState
	targets func(tgARN string) ([]fakeaws.TargetHealth, error)
	cluster string

	mu      sync.Mutex
	tracked int
	pending map[string]trackedChange
	seen    map[string]time.Time
}

type trackedChange struct {
	ingress types.NamespacedName
	seq     int
	expect  []workload.Expectation
}

// StartIngressApplied polls AWS every interval until ctx ends, for the load balancers a controller
// tagging them with clusterName deploys. It returns nil when aws is not an in-process fakeaws
// (LoadBalancerState): only that one shows the client secret a rule authenticates with.
func StartIngressApplied(ctx context.Context, aws backend.Backend, clusterName string, interval time.Duration) *IngressApplied {
	state, ok := aws.(LoadBalancerState)
	if !ok {
		return nil
	}
	a := &IngressApplied{aws: state, targets: aws.Targets, cluster: clusterName,
		pending: map[string]trackedChange{}, seen: map[string]time.Time{}}
	go pollEvery(ctx, interval, a.poll)
	return a
}

// Track watches for the change id of the Ingress to be applied; a change without expectations is
// never seen.
func (a *IngressApplied) Track(id string, ingress types.NamespacedName, expect []workload.Expectation) {
	if len(expect) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tracked++
	a.pending[id] = trackedChange{ingress: ingress, seq: a.tracked, expect: slices.Clone(expect)}
}

// SeenAt is when the change id was first seen applied.
func (a *IngressApplied) SeenAt(id string) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.seen[id]
	return t, ok
}

// poll judges the pending changes on AWS's state and records those applied at now(), read once the
// state was: the snapshot reads lazily, so a time taken before could precede the change it saw.
func (a *IngressApplied) poll(now func() time.Time) {
	a.mu.Lock()
	pending := maps.Clone(a.pending)
	a.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	snap := newLBSnapshot(a.aws, a.targets, a.cluster)
	var applied []string
	for id, ch := range pending {
		if !slices.ContainsFunc(ch.expect, func(e workload.Expectation) bool { return !snap.holds(e) }) {
			applied = append(applied, id)
		}
	}
	at := now()
	for _, id := range applied {
		a.applied(id, pending[id], at)
	}
}

// applied records the change id, and every earlier one of its Ingress still pending, seen at now.
func (a *IngressApplied) applied(id string, ch trackedChange, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for other, o := range a.pending {
		if other == id || o.ingress == ch.ingress && o.seq < ch.seq {
			delete(a.pending, other)
			a.seen[other] = now
		}
	}
}

// lbSnapshot is AWS's load balancer side as one poll reads it: load balancers and target groups
// once, a load balancer's rules when first asked.
type lbSnapshot struct {
	aws     LoadBalancerState
	targets func(tgARN string) ([]fakeaws.TargetHealth, error)
	cluster string
	lbs     []fakeaws.LoadBalancer
	tgs     map[string]fakeaws.TargetGroup // by ARN
	rules   map[string][]fakeaws.ListenerRule
}

func newLBSnapshot(aws LoadBalancerState, targets func(string) ([]fakeaws.TargetHealth, error), cluster string) *lbSnapshot {
	s := &lbSnapshot{aws: aws, targets: targets, cluster: cluster, lbs: aws.LoadBalancers(),
		tgs: map[string]fakeaws.TargetGroup{}, rules: map[string][]fakeaws.ListenerRule{}}
	for _, tg := range aws.TargetGroups() {
		s.tgs[tg.ARN] = tg
	}
	return s
}

// groupStack is the stack of the Ingress group.
func groupStack(group string) lbexpect.Stack {
	return lbexpect.Stack{Kind: lbexpect.IngressStack, Name: group}
}

// groupRules are every rule of every listener of the group's load balancer.
func (s *lbSnapshot) groupRules(group string) []fakeaws.ListenerRule {
	for _, lb := range s.lbs {
		if !taggedFor(lb.Tags, s.cluster, groupStack(group), lbexpect.LoadBalancerResource) {
			continue
		}
		if rules, ok := s.rules[lb.ARN]; ok {
			return rules
		}
		var rules []fakeaws.ListenerRule
		listeners, _ := s.aws.Listeners(lb.ARN)
		for _, l := range listeners {
			rs, _ := s.aws.Rules(l.ARN)
			rules = append(rules, rs...)
		}
		s.rules[lb.ARN] = rules
		return rules
	}
	return nil
}

// ruleActions are the actions of type typ of the group's rules matching host and path (a prefix
// path becomes the path-pattern values path and path/*, so the path itself is one of them).
func (s *lbSnapshot) ruleActions(e workload.Expectation, typ string) []fakeaws.Action {
	var out []fakeaws.Action
	for _, r := range s.groupRules(e.Group) {
		if r.IsDefault || !conditionHas(r.Conditions, "path-pattern", e.Path) || e.Host != "" && !conditionHas(r.Conditions, "host-header", e.Host) {
			continue
		}
		for _, a := range r.Actions {
			if a.Type == typ {
				out = append(out, a)
			}
		}
	}
	return out
}

func conditionHas(conds []fakeaws.RuleCondition, field, value string) bool {
	return slices.ContainsFunc(conds, func(c fakeaws.RuleCondition) bool { return c.Field == field && slices.Contains(c.Values, value) })
}

// holds reports whether AWS shows e (see workload's Expect* kinds).
func (s *lbSnapshot) holds(e workload.Expectation) bool {
	switch e.Check {
	case workload.ExpectForward:
		acts := s.ruleActions(e, lbexpect.ActionForward)
		return len(acts) > 0 && !slices.ContainsFunc(acts, func(a fakeaws.Action) bool { return !s.forwardsToBackend(a, e) })
	case workload.ExpectOIDCClientSecret:
		acts := s.ruleActions(e, lbexpect.ActionAuthenticateOIDC)
		return len(acts) > 0 && !slices.ContainsFunc(acts, func(a fakeaws.Action) bool { return a.OIDC == nil || a.OIDC.ClientSecret != e.Value })
	case workload.ExpectHealthCheckPath:
		tgs := s.backendTargetGroups(e)
		return len(tgs) > 0 && !slices.ContainsFunc(tgs, func(tg fakeaws.TargetGroup) bool { return tg.HealthCheck.Path != e.Value })
	}
	return false
}

// isBackend reports whether tg is the group's target group for e's Ingress, Service and port, by
// the resource tag LBC gives it.
func (s *lbSnapshot) isBackend(tg fakeaws.TargetGroup, e workload.Expectation) bool {
	want := lbexpect.IngressTargetGroupResource(e.Ingress.Namespace, e.Ingress.Name, e.Service.Name, strconv.Itoa(int(e.ServicePort)))
	return taggedFor(tg.Tags, s.cluster, groupStack(e.Group), want)
}

// backendTargetGroups are e's backend target groups that a listener or rule forwards to (an old one
// of the same backend may linger until the controller deletes it).
func (s *lbSnapshot) backendTargetGroups(e workload.Expectation) []fakeaws.TargetGroup {
	var out []fakeaws.TargetGroup
	for _, tg := range s.tgs {
		if len(tg.LoadBalancerARNs) > 0 && s.isBackend(tg, e) {
			out = append(out, tg)
		}
	}
	return out
}

// forwardsToBackend reports whether a forwards to e's backend target group only, which holds exactly
// e's targets (draining ones are on their way out).
func (s *lbSnapshot) forwardsToBackend(a fakeaws.Action, e workload.Expectation) bool {
	arn := a.TargetGroupARN
	if a.Forward != nil {
		if len(a.Forward.TargetGroups) != 1 {
			return false
		}
		arn = a.Forward.TargetGroups[0].ARN
	}
	tg, ok := s.tgs[arn]
	if !ok || !s.isBackend(tg, e) {
		return false
	}
	ths, err := s.targets(arn)
	if err != nil {
		return false
	}
	var have, want []string
	for _, th := range ths {
		if th.State != fakeaws.HealthDraining {
			have = append(have, tgbexpect.Target{ID: th.Target.ID, Port: th.Target.Port}.String())
		}
	}
	for _, t := range e.Targets {
		want = append(want, t.String())
	}
	slices.Sort(have)
	slices.Sort(want)
	return slices.Equal(have, want)
}

// pollEvery calls poll with the time every interval until ctx ends.
func pollEvery(ctx context.Context, interval time.Duration, poll func(now func() time.Time)) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C: // the tick's own time may be an interval old on a busy machine
			poll(time.Now)
		}
	}
}

package observe

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/oracle/lbexpect"
)

// LoadBalancerState is the AWS load balancer side as fakeaws stores it. Only an in-process fakeaws
// offers it: a client secret is never described, by AWS or by a standalone fakeaws's admin API, so
// the authentication a listener rule runs can only be checked from inside.
type LoadBalancerState interface {
	LoadBalancers() []fakeaws.LoadBalancer
	Listeners(lbARN string) ([]fakeaws.Listener, error)
	Rules(listenerARN string) ([]fakeaws.ListenerRule, error)
	TargetGroups() []fakeaws.TargetGroup
}

// LoadBalancerObjects are the objects the load balancers follow.
type LoadBalancerObjects = lbexpect.Objects

// ExpectedLoadBalancers are the load balancers the objects ask for (see lbexpect: derived from the
// objects and LBC's documented behaviour, not from any controller's model). Objects LBC could not
// deploy are a violation of their own, lb-invalid-objects.
func ExpectedLoadBalancers(o LoadBalancerObjects) ([]lbexpect.LoadBalancer, []results.Violation) {
	lbs, invalid := lbexpect.LoadBalancers(o)
	var bad []results.Violation
	for _, in := range invalid {
		bad = append(bad, results.Violation{TGB: in.Stack.String(), Kind: "lb-invalid-objects", Detail: in.Err.Error()})
	}
	return lbs, bad
}

// CheckLoadBalancers compares AWS with every expected load balancer: an active load balancer of
// its type and scheme, a listener of each port and protocol, the default actions, and per rule
// priority the same conditions and actions (no rule besides): forwards to the stack's target
// groups of the expected protocol, target type and health check path, fixed responses, redirects
// and authenticate-oidc with the Secret's current client secret. now is fakeaws's (scenario) time,
// which decides whether a load balancer is still provisioning. Resources are found by LBC's tags
// (cluster, stack, resource), as LBC's own discovery does, not by name: names are each
// controller's own hashes, and any controller deploying LBC's stacks is held to the same check.
func CheckLoadBalancers(aws LoadBalancerState, want []lbexpect.LoadBalancer, now time.Time) []results.Violation {
	lbs := aws.LoadBalancers()
	tgs := map[string]fakeaws.TargetGroup{}
	for _, tg := range aws.TargetGroups() {
		tgs[tg.ARN] = tg
	}
	var out []results.Violation
	for _, w := range want {
		c := stackCheck{want: w, tgs: tgs}
		lb, ok := c.loadBalancer(lbs)
		switch {
		case !ok:
			c.add("lb-missing", "no load balancer tagged for stack "+w.Stack.Name)
		case lb.StateAt(now) != fakeaws.LoadBalancerActive:
			c.add("lb-not-active", lb.Name+" is "+lb.StateAt(now))
		case lb.Type != w.Type || w.Scheme != "" && lb.Scheme != w.Scheme:
			c.add("lb-differs", fmt.Sprintf("%s is %s %s, want %s %s", lb.Name, lb.Scheme, lb.Type, orAny(w.Scheme), w.Type))
		default:
			c.listeners(aws, lb)
		}
		out = append(out, c.found...)
	}
	return out
}

func orAny(scheme string) string {
	if scheme == "" {
		return "any scheme"
	}
	return scheme
}

// stackCheck collects one load balancer's differences from AWS.
type stackCheck struct {
	want  lbexpect.LoadBalancer
	tgs   map[string]fakeaws.TargetGroup // by ARN
	found []results.Violation
}

// ownedBy reports whether tags mark the stack's resource of ID resource.
func (c *stackCheck) ownedBy(tags []fakeaws.Tag, resource string) bool {
	return taggedFor(tags, c.want.Cluster, c.want.Stack, resource)
}

// taggedFor reports whether tags carry LBC's discovery tags of cluster's stack and of the resource
// ID within it: the tags by which a controller finds its resources.
func taggedFor(tags []fakeaws.Tag, cluster string, stack lbexpect.Stack, resource string) bool {
	want := stack.Tags(cluster, resource)
	n := 0
	for _, t := range tags {
		if v, ok := want[t.Key]; ok && v == t.Value {
			n++
		}
	}
	return n == len(want)
}

func (c *stackCheck) loadBalancer(lbs []fakeaws.LoadBalancer) (fakeaws.LoadBalancer, bool) {
	i := slices.IndexFunc(lbs, func(lb fakeaws.LoadBalancer) bool { return c.ownedBy(lb.Tags, lbexpect.LoadBalancerResource) })
	if i < 0 {
		return fakeaws.LoadBalancer{}, false
	}
	return lbs[i], true
}

func (c *stackCheck) add(kind, detail string) {
	c.found = append(c.found, results.Violation{TGB: c.want.Stack.String(), Kind: kind, Detail: detail})
}

func (c *stackCheck) listeners(aws LoadBalancerState, lb fakeaws.LoadBalancer) {
	have, err := aws.Listeners(lb.ARN)
	if err != nil {
		c.add("listener-missing", err.Error())
		return
	}
	byPort := map[int32]fakeaws.Listener{}
	for _, l := range have {
		byPort[l.Port] = l
	}
	for _, want := range c.want.Listeners {
		l, ok := byPort[want.Port]
		if !ok {
			c.add("listener-missing", fmt.Sprintf("%s has no listener on port %d", lb.Name, want.Port))
			continue
		}
		if l.Protocol != want.Protocol {
			c.add("listener-differs", fmt.Sprintf("%s:%d is %s, want %s", lb.Name, want.Port, l.Protocol, want.Protocol))
			continue
		}
		if d := c.actionsDiffer(want.DefaultActions, l.DefaultActions); d != "" {
			c.add(actionKind("listener-differs", d), fmt.Sprintf("%s:%d default action: %s", lb.Name, want.Port, d))
		}
		c.rules(aws, lb.Name, l, want.Rules)
	}
}

func (c *stackCheck) rules(aws LoadBalancerState, lbName string, l fakeaws.Listener, want []lbexpect.Rule) {
	have, err := aws.Rules(l.ARN)
	if err != nil {
		c.add("rule-missing", err.Error())
		return
	}
	byPriority := map[int32]fakeaws.ListenerRule{}
	for _, r := range have {
		if !r.IsDefault {
			byPriority[r.Priority] = r
		}
	}
	for _, w := range want {
		where := fmt.Sprintf("%s:%d rule %d", lbName, l.Port, w.Priority)
		r, ok := byPriority[w.Priority]
		if !ok {
			c.add("rule-missing", where+" is missing")
			continue
		}
		delete(byPriority, w.Priority)
		// One violation per rule: a rule matching other requests differs whatever it does with them.
		if d := conditionsDiffer(w.Conditions, r.Conditions); d != "" {
			c.add("rule-differs", where+": "+d)
		} else if d := c.actionsDiffer(w.Actions, r.Actions); d != "" {
			c.add(actionKind("rule-differs", d), where+": "+d)
		}
	}
	// A rule the objects no longer ask for still routes requests (one of a removed path, say).
	extra := make([]int32, 0, len(byPriority))
	for p := range byPriority {
		extra = append(extra, p)
	}
	slices.Sort(extra)
	for _, p := range extra {
		c.add("rule-extra", fmt.Sprintf("%s:%d rule %d %v is not asked for", lbName, l.Port, p, conditionStrings(byPriority[p].Conditions)))
	}
}

// actionKind is oidc-secret-stale for a difference in the client secret alone, else kind.
func actionKind(kind, difference string) string {
	if strings.Contains(difference, "client secret") {
		return "oidc-secret-stale"
	}
	return kind
}

func conditionStrings(conds []fakeaws.RuleCondition) []string {
	var out []string
	for _, c := range conds {
		v := slices.Clone(c.Values)
		slices.Sort(v)
		out = append(out, c.Field+"="+strings.Join(v, ","))
	}
	slices.Sort(out)
	return out
}

func conditionsDiffer(want []lbexpect.Condition, have []fakeaws.RuleCondition) string {
	var asAWS []fakeaws.RuleCondition
	for _, c := range want {
		asAWS = append(asAWS, fakeaws.RuleCondition{Field: c.Field, Values: c.Values})
	}
	w, h := conditionStrings(asAWS), conditionStrings(have)
	if !slices.Equal(w, h) {
		return fmt.Sprintf("conditions %v, want %v", h, w)
	}
	return ""
}

package observe

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/reports/results"
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

// LoadBalancerObjects are the inputs of the desired load balancer stacks.
type LoadBalancerObjects struct {
	ClusterName  string
	IngressClass string
	Ingresses    []networkingv1.Ingress
	Services     []corev1.Service
	Secrets      []corev1.Secret
	// IngressClasses and ClassParams hold the IngressClass and the IngressClassParams it names.
	IngressClasses []networkingv1.IngressClass
	ClassParams    []v1beta1.IngressClassParams
}

// classDefaults are the settings of the IngressClassParams the IngressClass names (nil: none).
func (o LoadBalancerObjects) classDefaults() (*lbmodel.ClassDefaults, error) {
	i := slices.IndexFunc(o.IngressClasses, func(c networkingv1.IngressClass) bool { return c.Name == o.IngressClass })
	if i < 0 {
		return nil, nil
	}
	name, ok := lbmodel.ClassParamsName(&o.IngressClasses[i])
	if !ok {
		return nil, nil
	}
	j := slices.IndexFunc(o.ClassParams, func(p v1beta1.IngressClassParams) bool { return p.Name == name })
	if j < 0 {
		return nil, fmt.Errorf("IngressClassParams %s of IngressClass %s not found", name, o.IngressClass)
	}
	return lbmodel.ClassDefaultsOf(&o.ClassParams[j]), nil
}

// DesiredStacks are the stacks the objects ask for: one per Ingress group of the class and one per
// Service of type LoadBalancer an NLB serves. An object the model cannot be built from is a
// violation of its own (the controller cannot deploy it either).
func DesiredStacks(o LoadBalancerObjects) ([]lbmodel.Stack, []results.Violation) {
	var ingresses []networkingv1.Ingress
	for _, ing := range o.Ingresses {
		if lbmodel.BelongsToClass(&ing, o.IngressClass) {
			ingresses = append(ingresses, ing)
		}
	}
	var stacks []lbmodel.Stack
	var bad []results.Violation
	groups, err := lbmodel.GroupIngresses(ingresses)
	if err != nil {
		return nil, []results.Violation{{Kind: "lb-model", Detail: err.Error()}}
	}
	defaults, err := o.classDefaults()
	if err != nil && len(groups) > 0 {
		return nil, []results.Violation{{Kind: "lb-model", Detail: err.Error()}}
	}
	for _, g := range groups {
		st, _, err := lbmodel.BuildIngress(lbmodel.IngressInput{ClusterName: o.ClusterName, Group: g, Services: o.Services,
			Secrets: o.Secrets, ClassDefaults: defaults})
		if err != nil {
			bad = append(bad, results.Violation{TGB: g.ID.Name, Kind: "lb-model", Detail: err.Error()})
			continue
		}
		stacks = append(stacks, st)
	}
	for i := range o.Services {
		if !lbmodel.ManagesService(&o.Services[i]) {
			continue
		}
		st, _, err := lbmodel.BuildService(lbmodel.ServiceInput{ClusterName: o.ClusterName, Service: o.Services[i]})
		if err != nil {
			bad = append(bad, results.Violation{TGB: o.Services[i].Namespace + "/" + o.Services[i].Name, Kind: "lb-model", Detail: err.Error()})
			continue
		}
		stacks = append(stacks, st)
	}
	return stacks, bad
}

// CheckLoadBalancers compares AWS with every desired stack: an active load balancer of the stack's
// type and scheme, a listener per port, and per rule the same conditions and actions, forwards to
// the stack's target group of the model's protocol, target type and health check path, and
// an authenticate-oidc action with the Secret's current client secret; now is fakeaws's (scenario)
// time, which decides whether a load balancer is still provisioning. Resources are found by LBC's
// tags (cluster, stack, resource), as LBC's own discovery does, not by name: names are each
// controller's own hashes, and any controller deploying LBC's stacks is held to the same check.
func CheckLoadBalancers(aws LoadBalancerState, stacks []lbmodel.Stack, now time.Time) []results.Violation {
	lbs := aws.LoadBalancers()
	tgs := map[string]fakeaws.TargetGroup{}
	for _, tg := range aws.TargetGroups() {
		tgs[tg.ARN] = tg
	}
	var out []results.Violation
	for _, st := range stacks {
		c := stackCheck{stack: st, tgs: tgs}
		lb, ok := c.loadBalancer(lbs)
		switch {
		case !ok:
			c.add("lb-missing", "no load balancer tagged for stack "+st.ID.Name)
		case lb.StateAt(now) != fakeaws.LoadBalancerActive:
			c.add("lb-not-active", lb.Name+" is "+lb.StateAt(now))
		case lb.Type != st.LoadBalancer.Type || lb.Scheme != st.LoadBalancer.Scheme:
			c.add("lb-differs", fmt.Sprintf("%s is %s %s, want %s %s", lb.Name, lb.Scheme, lb.Type, st.LoadBalancer.Scheme, st.LoadBalancer.Type))
		default:
			c.listeners(aws, lb)
		}
		out = append(out, c.found...)
	}
	return out
}

// stackCheck collects one stack's differences from AWS.
type stackCheck struct {
	stack lbmodel.Stack
	tgs   map[string]fakeaws.TargetGroup // by ARN
	found []results.Violation
}

// ownedBy reports whether tags mark the stack's resource of model ID resource.
func (c *stackCheck) ownedBy(tags []fakeaws.Tag, resource string) bool {
	return taggedFor(tags, c.stack.LoadBalancer.Tags[lbmodel.TagCluster], c.stack.ID, resource)
}

// taggedFor reports whether tags carry LBC's discovery tags of cluster's stack id and of the model
// ID resource within it: the tags by which a controller finds its resources.
func taggedFor(tags []fakeaws.Tag, cluster string, id lbmodel.StackID, resource string) bool {
	want := map[string]string{lbmodel.TagCluster: cluster, id.StackTagKey(): id.Name, id.ResourceTagKey(): resource}
	n := 0
	for _, t := range tags {
		if v, ok := want[t.Key]; ok && v == t.Value {
			n++
		}
	}
	return n == len(want)
}

func (c *stackCheck) loadBalancer(lbs []fakeaws.LoadBalancer) (fakeaws.LoadBalancer, bool) {
	i := slices.IndexFunc(lbs, func(lb fakeaws.LoadBalancer) bool { return c.ownedBy(lb.Tags, lbmodel.TagLoadBalancerResource) })
	if i < 0 {
		return fakeaws.LoadBalancer{}, false
	}
	return lbs[i], true
}

func (c *stackCheck) add(kind, detail string) {
	c.found = append(c.found, results.Violation{TGB: string(c.stack.ID.Kind) + "/" + c.stack.ID.Name, Kind: kind, Detail: detail})
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
	for _, want := range c.stack.Listeners {
		l, ok := byPort[want.Port]
		if !ok {
			c.add("listener-missing", fmt.Sprintf("%s has no listener on port %d", lb.Name, want.Port))
			continue
		}
		if d := c.actionsDiffer([]lbmodel.Action{want.DefaultAction}, l.DefaultActions); d != "" {
			c.add("listener-differs", fmt.Sprintf("%s:%d default action: %s", lb.Name, want.Port, d))
		}
		c.rules(aws, lb.Name, l)
	}
}

func (c *stackCheck) rules(aws LoadBalancerState, lbName string, l fakeaws.Listener) {
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
	for _, want := range c.stack.Rules {
		if want.ListenerPort != l.Port {
			continue
		}
		where := fmt.Sprintf("%s:%d rule %d", lbName, l.Port, want.Priority)
		r, ok := byPriority[want.Priority]
		if !ok {
			c.add("rule-missing", where+" is missing")
			continue
		}
		if d := conditionsDiffer(want.Conditions, r.Conditions); d != "" {
			c.add("rule-differs", where+": "+d)
		}
		if d := c.actionsDiffer(want.Actions, r.Actions); d != "" {
			kind := "rule-differs"
			if strings.Contains(d, "client secret") {
				kind = "oidc-secret-stale"
			}
			c.add(kind, where+": "+d)
		}
	}
}

func conditionsDiffer(want []lbmodel.Condition, have []fakeaws.RuleCondition) string {
	norm := func(field string, values []string) string {
		v := slices.Clone(values)
		slices.Sort(v)
		return field + "=" + strings.Join(v, ",")
	}
	var w, h []string
	for _, c := range want {
		w = append(w, norm(c.Field, c.Values))
	}
	for _, c := range have {
		h = append(h, norm(c.Field, c.Values))
	}
	slices.Sort(w)
	slices.Sort(h)
	if !slices.Equal(w, h) {
		return fmt.Sprintf("conditions %v, want %v", h, w)
	}
	return ""
}

// actionsDiffer names the first difference between the model's actions and AWS's, in order.
func (c *stackCheck) actionsDiffer(want []lbmodel.Action, have []fakeaws.Action) string {
	have = slices.Clone(have)
	slices.SortStableFunc(have, func(a, b fakeaws.Action) int { return int(a.Order) - int(b.Order) })
	if len(want) != len(have) {
		return fmt.Sprintf("%d actions, want %d", len(have), len(want))
	}
	for i, w := range want {
		h := have[i]
		if h.Type != w.Type {
			return fmt.Sprintf("action %d is %s, want %s", i+1, h.Type, w.Type)
		}
		switch w.Type {
		case lbmodel.ActionForward:
			if d := c.forwardDiffers(h, w.TargetGroupID); d != "" {
				return d
			}
		case lbmodel.ActionAuthenticateOIDC:
			if d := oidcDiffers(w.AuthenticateOIDC, h.OIDC); d != "" {
				return d
			}
		}
	}
	return ""
}

// forwardDiffers names how a forward action's target group differs from the model's target
// group id: another resource, or another protocol, target type or health check path.
func (c *stackCheck) forwardDiffers(a fakeaws.Action, id string) string {
	arn := a.TargetGroupARN
	if arn == "" && a.Forward != nil && len(a.Forward.TargetGroups) == 1 {
		arn = a.Forward.TargetGroups[0].ARN
	}
	have, ok := c.tgs[arn]
	if !ok || !c.ownedBy(have.Tags, id) {
		return fmt.Sprintf("forwards to %q, not to the stack's target group %s", have.Name, id)
	}
	i := slices.IndexFunc(c.stack.TargetGroups, func(tg lbmodel.TargetGroup) bool { return tg.ID == id })
	if i < 0 {
		return "the model has no target group " + id
	}
	want := c.stack.TargetGroups[i]
	// Not the port: a target group's port is only the default of targets registered without one,
	// and LBC keeps a group whose port the model moved (its targets carry their own ports).
	if have.Protocol != want.Protocol || have.TargetType != want.TargetType || have.HealthCheck.Path != want.HealthCheck.Path {
		return fmt.Sprintf("forwards to %s (%s, %s, health check %q), want %s, %s, health check %q", have.Name,
			have.Protocol, have.TargetType, have.HealthCheck.Path, want.Protocol, want.TargetType, want.HealthCheck.Path)
	}
	return ""
}

func oidcDiffers(want *lbmodel.AuthenticateOIDC, have *fakeaws.OIDCConfig) string {
	switch {
	case want == nil || have == nil:
		return "authenticate-oidc configuration missing"
	case have.Issuer != want.Issuer || have.ClientID != want.ClientID || have.TokenEndpoint != want.TokenEndpoint:
		return fmt.Sprintf("authenticate-oidc issuer/client %s/%s, want %s/%s", have.Issuer, have.ClientID, want.Issuer, want.ClientID)
	case have.ClientSecret != want.ClientSecret:
		// Neither secret goes into the violation: results are written to disk.
		return "authenticate-oidc client secret is not the Secret's current one"
	}
	return ""
}

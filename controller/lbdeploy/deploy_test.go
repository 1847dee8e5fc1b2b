package lbdeploy_test

import (
	"reflect"
	"sort"
	"testing"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
)

func TestDeployCreatesTheStackThenOnlyDescribes(t *testing.T) {
	e := newEnv(t)
	st := newShop().stack(t)
	res := e.deploy(t, st)

	lbs := e.srv.LoadBalancers()
	if len(lbs) != 1 || lbs[0].Name != st.LoadBalancer.Name || lbs[0].DNSName == "" || lbs[0].DNSName != res.DNSName || lbs[0].ARN != res.LoadBalancerARN {
		t.Fatalf("load balancers = %+v, result %+v", lbs, res)
	}
	if len(lbs[0].Subnets) != 3 {
		t.Fatalf("subnets = %+v, want the three discovered default subnets", lbs[0].Subnets)
	}
	if len(res.TargetGroupARNs) != 2 || len(e.srv.TargetGroups()) != 2 {
		t.Fatalf("target group ARNs = %v", res.TargetGroupARNs)
	}
	for _, tg := range e.srv.TargetGroups() {
		tags := tagMap(tg.Tags)
		if tags[lbmodel.TagCluster] != cluster || tags["ingress.k8s.aws/stack"] != "shop/web" || res.TargetGroupARNs[tags["ingress.k8s.aws/resource"]] != tg.ARN {
			t.Fatalf("target group %s tags %v do not name it in the stack", tg.Name, tags)
		}
	}
	ls, err := e.srv.Listeners(res.LoadBalancerARN)
	if err != nil || len(ls) != 1 || ls[0].Port != 80 || ls[0].DefaultActions[0].Type != lbmodel.ActionFixedResponse {
		t.Fatalf("listeners = %+v (%v), want HTTP:80 with a fixed 404 default", ls, err)
	}
	rules := nonDefaultRules(t, e, ls[0].ARN)
	want := []string{res.TargetGroupARNs["shop/web-cart:80"], res.TargetGroupARNs["shop/web-catalog:80"]}
	if got := []string{rules[0].Actions[0].TargetGroupARN, rules[1].Actions[0].TargetGroupARN}; !reflect.DeepEqual(got, want) || rules[0].Priority != 1 || rules[1].Priority != 2 {
		t.Fatalf("rules forward to %v at priorities %d, %d; want %v at 1, 2", got, rules[0].Priority, rules[1].Priority, want)
	}

	n := e.srv.Recorder().Len()
	again := e.deploy(t, st)
	if ops := e.operations(n); len(mutations(ops)) > 0 || len(ops) == 0 {
		t.Fatalf("second deploy of the same stack called %v; want Describe calls only", ops)
	}
	if !reflect.DeepEqual(again, res) {
		t.Fatalf("second deploy returned %+v, first %+v", again, res)
	}
}

func TestDeployAppliesEachKindOfChange(t *testing.T) {
	e := newEnv(t)
	s := newShop()
	first := e.deploy(t, s.stack(t))

	s.ing.Spec.Rules[0].HTTP.Paths[0].Path = "/basket"                                           // rule 1 conditions: ModifyRule
	s.ing.Annotations[lbmodel.AnnotationHealthPath] = "/healthz"                                 // health checks: ModifyTargetGroup
	s.services[1].Spec.Ports[0].TargetPort.IntVal = 9191                                         // catalog: replaced target group
	s.ing.Annotations[lbmodel.AnnotationTags] = "team=shop"                                      // tags: AddTags
	s.ing.Spec.Rules[0].HTTP.Paths = append(s.ing.Spec.Rules[0].HTTP.Paths, path("/ex", "cart")) // CreateRule (shortest prefix: the last rule)
	n := e.srv.Recorder().Len()
	res := e.deploy(t, s.stack(t))
	ops := e.operations(n)
	for op, want := range map[string]int{"ModifyRule": 2, "CreateRule": 1, "CreateTargetGroup": 1, "DeleteTargetGroup": 1, "ModifyTargetGroup": 1, "CreateLoadBalancer": 0} {
		if got := count(ops, op); got != want {
			t.Errorf("%s called %d times, want %d (calls %v)", op, got, want, mutations(ops))
		}
	}
	if res.LoadBalancerARN != first.LoadBalancerARN || res.TargetGroupARNs["shop/web-cart:80"] != first.TargetGroupARNs["shop/web-cart:80"] {
		t.Fatal("an updatable resource was replaced")
	}
	if res.TargetGroupARNs["shop/web-catalog:80"] == first.TargetGroupARNs["shop/web-catalog:80"] {
		t.Fatal("the target group whose port changed was not replaced")
	}
	for _, tg := range e.srv.TargetGroups() {
		if tg.HealthCheck.Path != "/healthz" || tagMap(tg.Tags)["team"] != "shop" {
			t.Fatalf("target group %s: health check %+v, tags %v", tg.Name, tg.HealthCheck, tg.Tags)
		}
	}
	ls, _ := e.srv.Listeners(res.LoadBalancerARN)
	rules := nonDefaultRules(t, e, ls[0].ARN)
	if len(rules) != 3 || rules[0].Conditions[1].Values[0] != "/basket" || rules[1].Actions[0].TargetGroupARN != res.TargetGroupARNs["shop/web-catalog:80"] {
		t.Fatalf("rules after the change = %+v", rules)
	}

	s.ing.Spec.Rules[0].HTTP.Paths = s.ing.Spec.Rules[0].HTTP.Paths[:1] // back to one rule, one target group
	n = e.srv.Recorder().Len()
	res = e.deploy(t, s.stack(t))
	ops = e.operations(n)
	if count(ops, "DeleteRule") != 2 || count(ops, "DeleteTargetGroup") != 1 || len(e.srv.TargetGroups()) != 1 || len(res.TargetGroupARNs) != 1 {
		t.Fatalf("shrinking the Ingress called %v and left %d target groups", mutations(ops), len(e.srv.TargetGroups()))
	}
}

func TestSchemeChangeReplacesTheLoadBalancer(t *testing.T) {
	e := newEnv(t)
	s := newShop()
	first := e.deploy(t, s.stack(t))
	s.ing.Annotations[lbmodel.AnnotationScheme] = lbmodel.SchemeInternetFacing
	res := e.deploy(t, s.stack(t))
	lbs := e.srv.LoadBalancers()
	if res.LoadBalancerARN == first.LoadBalancerARN || len(lbs) != 1 || lbs[0].Scheme != lbmodel.SchemeInternetFacing {
		t.Fatalf("after a scheme change: %+v", lbs)
	}
	if ls, _ := e.srv.Listeners(res.LoadBalancerARN); len(ls) != 1 || len(nonDefaultRules(t, e, ls[0].ARN)) != 2 {
		t.Fatal("the new load balancer lacks its listener or rules")
	}
}

func TestDeleteRemovesOnlyItsStack(t *testing.T) {
	e := newEnv(t)
	a := newShop()
	b := newShop()
	b.ing.Name = "admin"
	resA := e.deploy(t, a.stack(t))
	resB := e.deploy(t, b.stack(t))
	if err := e.dep.Delete(ctx, lbmodel.StackID{Kind: lbmodel.KindIngress, Name: "shop/web"}); err != nil {
		t.Fatal(err)
	}
	lbs := e.srv.LoadBalancers()
	if len(lbs) != 1 || lbs[0].ARN != resB.LoadBalancerARN {
		t.Fatalf("load balancers after delete = %+v, want only %s", lbs, resB.LoadBalancerARN)
	}
	var left []string
	for _, tg := range e.srv.TargetGroups() {
		left = append(left, tg.ARN)
	}
	sort.Strings(left)
	want := []string{resB.TargetGroupARNs["shop/admin-cart:80"], resB.TargetGroupARNs["shop/admin-catalog:80"]}
	sort.Strings(want)
	if !reflect.DeepEqual(left, want) {
		t.Fatalf("target groups after delete = %v, want %v (deleted stack had %v)", left, want, resA.TargetGroupARNs)
	}
	if err := e.dep.Delete(ctx, lbmodel.StackID{Kind: lbmodel.KindIngress, Name: "shop/web"}); err != nil {
		t.Fatalf("deleting a deleted stack: %v", err)
	}
}

func tagMap(tags []fakeaws.Tag) map[string]string {
	m := map[string]string{}
	for _, t := range tags {
		m[t.Key] = t.Value
	}
	return m
}

func nonDefaultRules(t *testing.T, e *env, listenerARN string) []fakeaws.ListenerRule {
	t.Helper()
	all, err := e.srv.Rules(listenerARN)
	if err != nil {
		t.Fatal(err)
	}
	var out []fakeaws.ListenerRule
	for _, r := range all {
		if !r.IsDefault {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Priority < out[j].Priority })
	return out
}

func TestLoadBalancerAttributesAreSetOnceThenLeftAlone(t *testing.T) {
	e := newEnv(t)
	s := newShop()
	s.ing.Annotations[lbmodel.AnnotationLBAttributes] = "idle_timeout.timeout_seconds=120"
	res := e.deploy(t, s.stack(t))
	if got := e.srv.LoadBalancers()[0].Attributes["idle_timeout.timeout_seconds"]; got != "120" {
		t.Fatalf("idle timeout = %q, want 120", got)
	}
	n := e.srv.Recorder().Len()
	e.deploy(t, s.stack(t))
	if ops := e.operations(n); len(mutations(ops)) > 0 || count(ops, "DescribeLoadBalancerAttributes") != 1 {
		t.Fatalf("redeploy called %v; want one DescribeLoadBalancerAttributes and no write", ops)
	}
	s.ing.Annotations[lbmodel.AnnotationLBAttributes] = "idle_timeout.timeout_seconds=300"
	n = e.srv.Recorder().Len()
	e.deploy(t, s.stack(t))
	if ops := mutations(e.operations(n)); !reflect.DeepEqual(ops, []string{"ModifyLoadBalancerAttributes"}) {
		t.Fatalf("attribute change called %v", ops)
	}
	if got := e.srv.LoadBalancers()[0].Attributes["idle_timeout.timeout_seconds"]; got != "300" || e.srv.LoadBalancers()[0].ARN != res.LoadBalancerARN {
		t.Fatalf("idle timeout = %q after the change, want 300 on the same load balancer", got)
	}
}

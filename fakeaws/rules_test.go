package fakeaws_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func priorities(rules []elbtypes.Rule) []string {
	out := make([]string, 0, len(rules))
	for _, r := range rules {
		out = append(out, aws.ToString(r.Priority))
	}
	return out
}

func TestRules(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	tg := e.createTG(t, "web-tg", "ip", 8080)
	l := e.createListener(t, lb, 80, fixed("404")).ListenerArn
	host := must[*elb.CreateRuleOutput](t)(e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l, Priority: aws.Int32(10),
		Conditions: hostRule("a.example.com"), Actions: forwardTo(tg)})).Rules[0]
	if c := host.Conditions[0]; aws.ToString(c.Field) != "host-header" || !slices.Equal(c.Values, []string{"a.example.com"}) ||
		c.HostHeaderConfig == nil || !slices.Equal(c.HostHeaderConfig.Values, []string{"a.example.com"}) || aws.ToString(host.Priority) != "10" {
		t.Fatalf("host rule %+v", host)
	}
	path := must[*elb.CreateRuleOutput](t)(e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l, Priority: aws.Int32(5),
		Conditions: []elbtypes.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/api/*"}}}, Actions: fixed("200")})).Rules[0]
	if c := path.Conditions[0]; c.PathPatternConfig == nil || !slices.Equal(c.PathPatternConfig.Values, []string{"/api/*"}) {
		t.Fatalf("legacy Values not described in PathPatternConfig: %+v", c)
	}
	tgs := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tg}}))
	if !slices.Equal(tgs.TargetGroups[0].LoadBalancerArns, []string{lb}) {
		t.Fatal("a rule's forward does not associate its target group")
	}

	all := must[*elb.DescribeRulesOutput](t)(e.elb.DescribeRules(ctx, &elb.DescribeRulesInput{ListenerArn: l}))
	if got := priorities(all.Rules); !slices.Equal(got, []string{"5", "10", "default"}) {
		t.Fatalf("priorities %v", got)
	}
	def := all.Rules[2]
	if !aws.ToBool(def.IsDefault) || len(def.Conditions) != 0 || aws.ToString(def.Actions[0].FixedResponseConfig.StatusCode) != "404" {
		t.Fatalf("default rule %+v", def)
	}
	_, err := e.elb.DeleteRule(ctx, &elb.DeleteRuleInput{RuleArn: def.RuleArn})
	wantCode(t, err, "OperationNotPermitted")
	// The default rule's actions are the listener's default actions.
	must[*elb.ModifyRuleOutput](t)(e.elb.ModifyRule(ctx, &elb.ModifyRuleInput{RuleArn: def.RuleArn, Actions: fixed("503")}))
	ls := must[*elb.DescribeListenersOutput](t)(e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{ListenerArns: []string{*l}}))
	if aws.ToString(ls.Listeners[0].DefaultActions[0].FixedResponseConfig.StatusCode) != "503" {
		t.Fatal("ModifyRule of the default rule did not change the listener")
	}
	_, err = e.elb.ModifyRule(ctx, &elb.ModifyRuleInput{RuleArn: def.RuleArn, Conditions: hostRule("x")})
	wantCode(t, err, "OperationNotPermitted")

	_, err = e.elb.ModifyRule(ctx, &elb.ModifyRuleInput{RuleArn: host.RuleArn, Conditions: []elbtypes.RuleCondition{}})
	wantCode(t, err, "ValidationError")
	mod := must[*elb.ModifyRuleOutput](t)(e.elb.ModifyRule(ctx, &elb.ModifyRuleInput{RuleArn: host.RuleArn, Conditions: hostRule("b.example.com")})).Rules[0]
	if mod.Conditions[0].Values[0] != "b.example.com" || aws.ToString(mod.Actions[0].TargetGroupArn) != tg {
		t.Fatalf("modified rule %+v", mod)
	}
	set := must[*elb.SetRulePrioritiesOutput](t)(e.elb.SetRulePriorities(ctx, &elb.SetRulePrioritiesInput{RulePriorities: []elbtypes.RulePriorityPair{
		{RuleArn: host.RuleArn, Priority: aws.Int32(5)}, {RuleArn: path.RuleArn, Priority: aws.Int32(10)}}}))
	if got := priorities(set.Rules); !slices.Equal(got, []string{"5", "10"}) {
		t.Fatalf("swapped priorities %v", got)
	}
	byARN := must[*elb.DescribeRulesOutput](t)(e.elb.DescribeRules(ctx, &elb.DescribeRulesInput{RuleArns: []string{*path.RuleArn, *host.RuleArn}}))
	if got := priorities(byARN.Rules); !slices.Equal(got, []string{"10", "5"}) {
		t.Fatalf("by ARN %v", got)
	}
	must[*elb.DeleteRuleOutput](t)(e.elb.DeleteRule(ctx, &elb.DeleteRuleInput{RuleArn: host.RuleArn}))
	_, err = e.elb.DeleteRule(ctx, &elb.DeleteRuleInput{RuleArn: host.RuleArn})
	wantCode(t, err, "RuleNotFound")
	tgs = must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tg}}))
	if len(tgs.TargetGroups[0].LoadBalancerArns) != 0 {
		t.Fatal("deleting the only forwarding rule kept the association")
	}
}

func TestRuleErrors(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxRulesPerListener: 3})
	lb := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	l := e.createListener(t, lb, 80, fixed("404")).ListenerArn
	create := func(prio int32, cs []elbtypes.RuleCondition, as []elbtypes.Action) error {
		_, err := e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l, Priority: aws.Int32(prio), Conditions: cs, Actions: as})
		return err
	}
	if err := create(1, hostRule("a"), fixed("200")); err != nil {
		t.Fatal(err)
	}
	wantCode(t, create(1, hostRule("b"), fixed("200")), "PriorityInUse")
	wantCode(t, create(0, hostRule("b"), fixed("200")), "ValidationError")
	wantCode(t, create(50001, hostRule("b"), fixed("200")), "ValidationError")
	wantCode(t, create(2, []elbtypes.RuleCondition{}, fixed("200")), "ValidationError") // the SDK refuses nil itself
	wantCode(t, create(2, []elbtypes.RuleCondition{{Field: aws.String("cookie"), Values: []string{"x"}}}, fixed("200")), "ValidationError")
	wantCode(t, create(2, []elbtypes.RuleCondition{{Field: aws.String("host-header"), Values: []string{"a"},
		HostHeaderConfig: &elbtypes.HostHeaderConditionConfig{Values: []string{"b"}}}}, fixed("200")), "ValidationError")
	wantCode(t, create(2, []elbtypes.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"no-slash"}}}, fixed("200")), "ValidationError")
	wantCode(t, create(2, hostRule("b"), forwardTo("arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/none/0123456789abcdef")), "TargetGroupNotFound")
	_, err := e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: aws.String(*l + "0"), Priority: aws.Int32(3), Conditions: hostRule("c"), Actions: fixed("200")})
	wantCode(t, err, "ListenerNotFound")
	for p := int32(2); p <= 3; p++ {
		if err := create(p, hostRule(fmt.Sprint(p)), fixed("200")); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, create(4, hostRule("d"), fixed("200")), "TooManyRules")
	rules := must[*elb.DescribeRulesOutput](t)(e.elb.DescribeRules(ctx, &elb.DescribeRulesInput{ListenerArn: l})).Rules
	_, err = e.elb.SetRulePriorities(ctx, &elb.SetRulePrioritiesInput{RulePriorities: []elbtypes.RulePriorityPair{{RuleArn: rules[0].RuleArn, Priority: aws.Int32(2)}}})
	wantCode(t, err, "PriorityInUse")
	_, err = e.elb.SetRulePriorities(ctx, &elb.SetRulePrioritiesInput{RulePriorities: []elbtypes.RulePriorityPair{{RuleArn: rules[3].RuleArn, Priority: aws.Int32(9)}}})
	wantCode(t, err, "OperationNotPermitted") // the default rule
	_, err = e.elb.SetRulePriorities(ctx, &elb.SetRulePrioritiesInput{RulePriorities: []elbtypes.RulePriorityPair{
		{RuleArn: rules[0].RuleArn, Priority: aws.Int32(7)}, {RuleArn: aws.String(*rules[0].RuleArn + "0"), Priority: aws.Int32(8)}}})
	wantCode(t, err, "RuleNotFound")
	if got := priorities(must[*elb.DescribeRulesOutput](t)(e.elb.DescribeRules(ctx, &elb.DescribeRulesInput{ListenerArn: l})).Rules); !slices.Equal(got, []string{"1", "2", "3", "default"}) {
		t.Fatalf("a failed SetRulePriorities changed priorities: %v", got)
	}
	page := must[*elb.DescribeRulesOutput](t)(e.elb.DescribeRules(ctx, &elb.DescribeRulesInput{ListenerArn: l, PageSize: aws.Int32(3)}))
	next := must[*elb.DescribeRulesOutput](t)(e.elb.DescribeRules(ctx, &elb.DescribeRulesInput{ListenerArn: l, PageSize: aws.Int32(3), Marker: page.NextMarker}))
	if len(page.Rules) != 3 || page.NextMarker == nil || len(next.Rules) != 1 || next.NextMarker != nil || !aws.ToBool(next.Rules[0].IsDefault) {
		t.Fatalf("pages of %d and %d rules", len(page.Rules), len(next.Rules))
	}
}

func TestTagsOnLoadBalancerResources(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	l := aws.ToString(e.createListener(t, lb, 80, fixed("404")).ListenerArn)
	r := aws.ToString(must[*elb.CreateRuleOutput](t)(e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: &l, Priority: aws.Int32(1),
		Conditions: hostRule("a"), Actions: fixed("200"), Tags: []elbtypes.Tag{{Key: aws.String("ingress"), Value: aws.String("ns/a")}}})).Rules[0].RuleArn)
	tg := e.createTG(t, "tg", "ip", 80)
	arns := []string{lb, l, r, tg}
	must[*elb.AddTagsOutput](t)(e.elb.AddTags(ctx, &elb.AddTagsInput{ResourceArns: arns, Tags: []elbtypes.Tag{{Key: aws.String("stack"), Value: aws.String("s1")}}}))
	must[*elb.RemoveTagsOutput](t)(e.elb.RemoveTags(ctx, &elb.RemoveTagsInput{ResourceArns: []string{r}, TagKeys: []string{"ingress"}}))
	d := must[*elb.DescribeTagsOutput](t)(e.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: arns}))
	for i, td := range d.TagDescriptions {
		if aws.ToString(td.ResourceArn) != arns[i] || len(td.Tags) != 1 || aws.ToString(td.Tags[0].Key) != "stack" {
			t.Fatalf("tags of %s: %+v", arns[i], td.Tags)
		}
	}
	for arn, code := range map[string]string{lb + "0": "LoadBalancerNotFound", l + "0": "ListenerNotFound", r + "0": "RuleNotFound", tg + "0": "TargetGroupNotFound"} {
		_, err := e.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: []string{arn}})
		wantCode(t, err, code)
		_, err = e.elb.AddTags(ctx, &elb.AddTagsInput{ResourceArns: []string{lb, arn}, Tags: []elbtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}}})
		wantCode(t, err, code)
	}
	// AddTags is all or nothing: the load balancer named before the unknown ARN was not tagged.
	d = must[*elb.DescribeTagsOutput](t)(e.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: []string{lb}}))
	if len(d.TagDescriptions[0].Tags) != 1 {
		t.Fatalf("partial AddTags: %+v", d.TagDescriptions[0].Tags)
	}
	// DescribeTags takes at most 20 ARNs: a constraint violation, ValidationError (the API lists no other code).
	many := make([]string, 21)
	for i := range many {
		many[i] = lb
	}
	_, err := e.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: many})
	wantCode(t, err, "ValidationError")
}

// TestRuleConditionShapes: every condition field reads back in its config, and what a request left out reads
// back as nil (a client comparing its model with AWS's answer must not see "" for nothing).
func TestRuleConditionShapes(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	l := e.createListener(t, lb, 80, fixed("404")).ListenerArn
	cs := []elbtypes.RuleCondition{
		{Field: aws.String("http-header"), HttpHeaderConfig: &elbtypes.HttpHeaderConditionConfig{HttpHeaderName: aws.String("X-Env"), Values: []string{"prod"}}},
		{Field: aws.String("query-string"), QueryStringConfig: &elbtypes.QueryStringConditionConfig{Values: []elbtypes.QueryStringKeyValuePair{{Value: aws.String("on")}, {Key: aws.String("v"), Value: aws.String("2")}}}},
		{Field: aws.String("source-ip"), SourceIpConfig: &elbtypes.SourceIpConditionConfig{Values: []string{"10.0.0.0/8"}}},
		{Field: aws.String("http-request-method"), HttpRequestMethodConfig: &elbtypes.HttpRequestMethodConditionConfig{Values: []string{"GET"}}},
	}
	r := must[*elb.CreateRuleOutput](t)(e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l, Priority: aws.Int32(1), Conditions: cs, Actions: fixed("200")})).Rules[0]
	got := r.Conditions
	if len(got) != 4 || aws.ToString(got[0].HttpHeaderConfig.HttpHeaderName) != "X-Env" || got[0].HttpHeaderConfig.Values[0] != "prod" || len(got[0].Values) != 0 {
		t.Fatalf("http-header %+v", got[0])
	}
	if q := got[1].QueryStringConfig.Values; len(q) != 2 || q[0].Key != nil || aws.ToString(q[0].Value) != "on" || aws.ToString(q[1].Key) != "v" {
		t.Fatalf("query-string %+v", q)
	}
	if got[2].SourceIpConfig.Values[0] != "10.0.0.0/8" || got[3].HttpRequestMethodConfig.Values[0] != "GET" {
		t.Fatalf("source-ip / method %+v %+v", got[2], got[3])
	}
	if fr := r.Actions[0].FixedResponseConfig; fr.ContentType != nil || fr.MessageBody != nil || aws.ToString(fr.StatusCode) != "200" {
		t.Fatalf("fixed response %+v", fr)
	}
	_, err := e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l, Priority: aws.Int32(2), Actions: fixed("200"),
		Conditions: []elbtypes.RuleCondition{{Field: aws.String("source-ip"), SourceIpConfig: &elbtypes.SourceIpConditionConfig{Values: []string{"not-a-cidr"}}}}})
	wantCode(t, err, "ValidationError")
}

package fakeaws_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// A successful create names what it made on its recorded call, so that a create can be told apart from
// another one by the resource it made; a failed create names nothing.
func TestCreateCallsNameWhatTheyMade(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileUnlimited})
	tg := e.createTG(t, "made", "ip", 80)
	lb := e.createLB(t, "made-lb", elbtypes.LoadBalancerTypeEnumApplication)
	l := e.createListener(t, *lb.LoadBalancerArn, 80, forwardTo(tg))
	rule := must[*elb.CreateRuleOutput](t)(e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l.ListenerArn, Priority: aws.Int32(1),
		Conditions: hostRule("a.example.com"), Actions: forwardTo(tg)}))
	_, err := e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String("made"), Protocol: elbtypes.ProtocolEnumHttp,
		Port: aws.Int32(81), VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnumIp})
	wantCode(t, err, "DuplicateTargetGroupName")

	want := map[string]fakeaws.Call{
		"CreateTargetGroup":  {TargetGroupARN: tg},
		"CreateLoadBalancer": {LoadBalancerARN: *lb.LoadBalancerArn},
		"CreateListener":     {LoadBalancerARN: *lb.LoadBalancerArn, ListenerARN: *l.ListenerArn},
		"CreateRule":         {ListenerARN: *l.ListenerArn, RuleARN: *rule.Rules[0].RuleArn},
	}
	seen := 0
	for _, c := range e.srv.Recorder().Calls() {
		w, ok := want[c.Operation]
		if !ok {
			continue
		}
		if c.Outcome != fakeaws.OutcomeOK {
			if len(c.Resources()) != 0 {
				t.Errorf("failed %s names %v", c.Operation, c.Resources())
			}
			continue
		}
		seen++
		if c.TargetGroupARN != w.TargetGroupARN || c.LoadBalancerARN != w.LoadBalancerARN || c.ListenerARN != w.ListenerARN || c.RuleARN != w.RuleARN {
			t.Errorf("%s recorded tg %q lb %q listener %q rule %q; want %+v", c.Operation, c.TargetGroupARN, c.LoadBalancerARN, c.ListenerARN, c.RuleARN, w)
		}
	}
	if seen != len(want) {
		t.Errorf("%d successful creates recorded, want %d", seen, len(want))
	}
}

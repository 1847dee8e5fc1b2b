package fakeaws_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// defaultSubnets discovers the seeded subnets the way the AWS Load Balancer Controller does: by VPC and role tag.
func (e *env) defaultSubnets(t testing.TB) []string {
	t.Helper()
	out := must[*ec2.DescribeSubnetsOutput](t)(e.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{e.srv.DefaultVPCID()}},
		{Name: aws.String("tag:kubernetes.io/role/elb"), Values: []string{"", "1"}},
	}}))
	ids := make([]string, 0, len(out.Subnets))
	for _, s := range out.Subnets {
		ids = append(ids, aws.ToString(s.SubnetId))
	}
	if len(ids) != 3 {
		t.Fatalf("default subnets = %v, want 3", ids)
	}
	return ids
}

func (e *env) createLB(t testing.TB, name string, typ elbtypes.LoadBalancerTypeEnum) elbtypes.LoadBalancer {
	t.Helper()
	out := must[*elb.CreateLoadBalancerOutput](t)(e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{
		Name: aws.String(name), Type: typ, Subnets: e.defaultSubnets(t)}))
	return out.LoadBalancers[0]
}

func forwardTo(tg string) []elbtypes.Action {
	return []elbtypes.Action{{Type: elbtypes.ActionTypeEnumForward, TargetGroupArn: aws.String(tg)}}
}

func (e *env) createListener(t testing.TB, lb string, port int32, actions []elbtypes.Action) elbtypes.Listener {
	t.Helper()
	out := must[*elb.CreateListenerOutput](t)(e.elb.CreateListener(ctx, &elb.CreateListenerInput{
		LoadBalancerArn: aws.String(lb), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(port), DefaultActions: actions}))
	return out.Listeners[0]
}

// useTG puts tg behind a new Application Load Balancer's listener: ELBv2 health checks only the targets of a
// group a load balancer forwards to.
func (e *env) useTG(t testing.TB, name, tg string) {
	t.Helper()
	lb := e.createLB(t, name, elbtypes.LoadBalancerTypeEnumApplication)
	e.createListener(t, aws.ToString(lb.LoadBalancerArn), 80, forwardTo(tg))
}

func hostRule(host string) []elbtypes.RuleCondition {
	return []elbtypes.RuleCondition{{Field: aws.String("host-header"), HostHeaderConfig: &elbtypes.HostHeaderConditionConfig{Values: []string{host}}}}
}

func fixed(code string) []elbtypes.Action {
	return []elbtypes.Action{{Type: elbtypes.ActionTypeEnumFixedResponse, FixedResponseConfig: &elbtypes.FixedResponseActionConfig{StatusCode: aws.String(code)}}}
}

// counterValue sums the counter samples of a metric whose labels include all of want.
func counterValue(t testing.TB, srv *fakeaws.Server, name string, want map[string]string) float64 {
	t.Helper()
	families, err := srv.Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			have := map[string]string{}
			for _, l := range m.GetLabel() {
				have[l.GetName()] = l.GetValue()
			}
			matches := true
			for k, v := range want {
				matches = matches && have[k] == v
			}
			if matches {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

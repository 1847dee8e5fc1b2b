package fakeaws_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// Every load balancer carries EnablePrefixForIpv6SourceNat, "off" (AWS's documented default) unless a dualstack
// network load balancer asked for "on", in CreateLoadBalancer's, DescribeLoadBalancers' and SetSubnets' answers
// alike: ACK's controller late-initialises the field and waits for it before it calls a load balancer synced.
func TestLoadBalancerIPv6SourceNATPrefix(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	subnets := e.defaultSubnets(t)
	alb := e.createLB(t, "alb", elbtypes.LoadBalancerTypeEnumApplication)
	nlb := e.createLB(t, "nlb", elbtypes.LoadBalancerTypeEnumNetwork)
	dual := must[*elb.CreateLoadBalancerOutput](t)(e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{
		Name: aws.String("dual"), Type: elbtypes.LoadBalancerTypeEnumNetwork, IpAddressType: elbtypes.IpAddressTypeDualstack,
		Subnets: subnets, EnablePrefixForIpv6SourceNat: elbtypes.EnablePrefixForIpv6SourceNatEnumOn})).LoadBalancers[0]
	want := map[string]elbtypes.EnablePrefixForIpv6SourceNatEnum{"alb": "off", "nlb": "off", "dual": "on"}
	for _, lb := range []elbtypes.LoadBalancer{alb, nlb, dual} {
		if got := lb.EnablePrefixForIpv6SourceNat; got != want[aws.ToString(lb.LoadBalancerName)] {
			t.Errorf("CreateLoadBalancer %s: EnablePrefixForIpv6SourceNat %q", aws.ToString(lb.LoadBalancerName), got)
		}
	}
	out := must[*elb.DescribeLoadBalancersOutput](t)(e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{}))
	for _, lb := range out.LoadBalancers {
		if got := lb.EnablePrefixForIpv6SourceNat; got != want[aws.ToString(lb.LoadBalancerName)] {
			t.Errorf("DescribeLoadBalancers %s: EnablePrefixForIpv6SourceNat %q", aws.ToString(lb.LoadBalancerName), got)
		}
	}

	set := must[*elb.SetSubnetsOutput](t)(e.elb.SetSubnets(ctx, &elb.SetSubnetsInput{LoadBalancerArn: dual.LoadBalancerArn,
		Subnets: subnets[:2], EnablePrefixForIpv6SourceNat: elbtypes.EnablePrefixForIpv6SourceNatEnumOff}))
	if set.EnablePrefixForIpv6SourceNat != "off" {
		t.Errorf("SetSubnets turning it off answered %q", set.EnablePrefixForIpv6SourceNat)
	}
	set = must[*elb.SetSubnetsOutput](t)(e.elb.SetSubnets(ctx, &elb.SetSubnetsInput{LoadBalancerArn: alb.LoadBalancerArn, Subnets: subnets[:2]}))
	if set.EnablePrefixForIpv6SourceNat != "off" {
		t.Errorf("SetSubnets of the ALB answered %q", set.EnablePrefixForIpv6SourceNat)
	}

	for _, in := range []*elb.CreateLoadBalancerInput{
		{Name: aws.String("alb-on"), Subnets: subnets, EnablePrefixForIpv6SourceNat: "on"},
		{Name: aws.String("nlb-on"), Type: elbtypes.LoadBalancerTypeEnumNetwork, Subnets: subnets, EnablePrefixForIpv6SourceNat: "on"},
	} {
		_, err := e.elb.CreateLoadBalancer(ctx, in)
		wantCode(t, err, "InvalidConfigurationRequest")
	}
	_, err := e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{Name: aws.String("bad"), Subnets: subnets, EnablePrefixForIpv6SourceNat: "yes"})
	wantCode(t, err, "ValidationError")
}

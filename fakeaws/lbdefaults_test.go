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

// An HTTPS listener describes its mutual authentication, Mode "off" (AWS's default) unless set to passthrough;
// other listeners describe none. ACK's controller compares the field on every reconcile.
func TestListenerMutualAuthentication(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := e.createLB(t, "mtls", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	https := func(port int32, mode string) (*elb.CreateListenerOutput, error) {
		in := &elb.CreateListenerInput{LoadBalancerArn: lb, Protocol: elbtypes.ProtocolEnumHttps, Port: aws.Int32(port),
			Certificates: []elbtypes.Certificate{{CertificateArn: aws.String(certARN)}}, DefaultActions: fixed("404")}
		if mode != "" {
			in.MutualAuthentication = &elbtypes.MutualAuthenticationAttributes{Mode: aws.String(mode)}
		}
		return e.elb.CreateListener(ctx, in)
	}
	plain := must[*elb.CreateListenerOutput](t)(https(443, "")).Listeners[0]
	pass := must[*elb.CreateListenerOutput](t)(https(8443, "passthrough")).Listeners[0]
	http := e.createListener(t, aws.ToString(lb), 80, fixed("404"))
	mode := func(l elbtypes.Listener) string {
		if l.MutualAuthentication == nil {
			return "<none>"
		}
		return aws.ToString(l.MutualAuthentication.Mode)
	}
	want := map[int32]string{443: "off", 8443: "passthrough", 80: "<none>"}
	for _, l := range []elbtypes.Listener{plain, pass, http} {
		if mode(l) != want[aws.ToInt32(l.Port)] {
			t.Errorf("CreateListener %d: MutualAuthentication %s", aws.ToInt32(l.Port), mode(l))
		}
	}
	for _, l := range must[*elb.DescribeListenersOutput](t)(e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{LoadBalancerArn: lb})).Listeners {
		if mode(l) != want[aws.ToInt32(l.Port)] {
			t.Errorf("DescribeListeners %d: MutualAuthentication %s", aws.ToInt32(l.Port), mode(l))
		}
	}

	_, err := https(9443, "verify")
	wantCode(t, err, "TrustStoreNotFound")
	_, err = e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: http.ListenerArn,
		MutualAuthentication: &elbtypes.MutualAuthenticationAttributes{Mode: aws.String("passthrough")}})
	wantCode(t, err, "InvalidConfigurationRequest")
	off := must[*elb.ModifyListenerOutput](t)(e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: pass.ListenerArn,
		MutualAuthentication: &elbtypes.MutualAuthenticationAttributes{Mode: aws.String("off")}})).Listeners[0]
	if mode(off) != "off" {
		t.Errorf("turned off: %s", mode(off))
	}
	toHTTP := must[*elb.ModifyListenerOutput](t)(e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: plain.ListenerArn,
		Protocol: elbtypes.ProtocolEnumHttp})).Listeners[0]
	if mode(toHTTP) != "<none>" {
		t.Errorf("an HTTPS listener made HTTP: %s", mode(toHTTP))
	}
}

package fakeaws_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestLoadBalancerSettings(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	subnets := e.defaultSubnets(t)
	lb := e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	set := must[*elb.SetSubnetsOutput](t)(e.elb.SetSubnets(ctx, &elb.SetSubnetsInput{LoadBalancerArn: lb, Subnets: subnets[:2]}))
	if len(set.AvailabilityZones) != 2 || set.IpAddressType != elbtypes.IpAddressTypeIpv4 {
		t.Fatalf("SetSubnets answered %+v", set)
	}
	d := must[*elb.DescribeLoadBalancersOutput](t)(e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{*lb}}))
	if len(d.LoadBalancers[0].AvailabilityZones) != 2 {
		t.Fatal("SetSubnets not applied")
	}
	_, err := e.elb.SetSubnets(ctx, &elb.SetSubnetsInput{LoadBalancerArn: lb, Subnets: subnets[:1]})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.SetSubnets(ctx, &elb.SetSubnetsInput{LoadBalancerArn: lb, Subnets: []string{subnets[0], "subnet-0000000000000000"}})
	wantCode(t, err, "SubnetNotFound")

	a := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("a", "a", ""))
	b := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("b", "b", ""))
	sgs := must[*elb.SetSecurityGroupsOutput](t)(e.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: lb, SecurityGroups: []string{a.ID, b.ID}}))
	if !slices.Equal(sgs.SecurityGroupIds, []string{a.ID, b.ID}) {
		t.Fatalf("SetSecurityGroups answered %v", sgs.SecurityGroupIds)
	}
	_, err = e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(b.ID)})
	wantCode(t, err, "DependencyViolation")
	must[*elb.SetSecurityGroupsOutput](t)(e.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: lb, SecurityGroups: []string{a.ID}}))
	must[*ec2.DeleteSecurityGroupOutput](t)(e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(b.ID)})) // released
	_, err = e.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: lb, SecurityGroups: []string{"sg-00000000000000000"}})
	wantCode(t, err, "InvalidSecurityGroup")
	nlb := e.createLB(t, "tcp", elbtypes.LoadBalancerTypeEnumNetwork).LoadBalancerArn
	_, err = e.elb.SetSecurityGroups(ctx, &elb.SetSecurityGroupsInput{LoadBalancerArn: nlb, SecurityGroups: []string{a.ID}})
	wantCode(t, err, "InvalidConfigurationRequest")

	ip := must[*elb.SetIpAddressTypeOutput](t)(e.elb.SetIpAddressType(ctx, &elb.SetIpAddressTypeInput{LoadBalancerArn: lb, IpAddressType: elbtypes.IpAddressTypeDualstack}))
	if ip.IpAddressType != elbtypes.IpAddressTypeDualstack {
		t.Fatalf("SetIpAddressType answered %s", ip.IpAddressType)
	}
	_, err = e.elb.SetIpAddressType(ctx, &elb.SetIpAddressTypeInput{LoadBalancerArn: nlb, IpAddressType: elbtypes.IpAddressTypeDualstackWithoutPublicIpv4})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.SetIpAddressType(ctx, &elb.SetIpAddressTypeInput{LoadBalancerArn: aws.String(*lb + "0"), IpAddressType: elbtypes.IpAddressTypeIpv4})
	wantCode(t, err, "LoadBalancerNotFound")
}

func TestListenerCertificates(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	cert := func(n string) elbtypes.Certificate {
		return elbtypes.Certificate{CertificateArn: aws.String(certARN + n)}
	}
	l := must[*elb.CreateListenerOutput](t)(e.elb.CreateListener(ctx, &elb.CreateListenerInput{LoadBalancerArn: lb, Protocol: elbtypes.ProtocolEnumHttps,
		Port: aws.Int32(443), Certificates: []elbtypes.Certificate{cert("-default")}, DefaultActions: fixed("404")})).Listeners[0].ListenerArn
	must[*elb.AddListenerCertificatesOutput](t)(e.elb.AddListenerCertificates(ctx, &elb.AddListenerCertificatesInput{ListenerArn: l,
		Certificates: []elbtypes.Certificate{cert("-a"), cert("-b")}}))
	list := func() []string {
		out := must[*elb.DescribeListenerCertificatesOutput](t)(e.elb.DescribeListenerCertificates(ctx, &elb.DescribeListenerCertificatesInput{ListenerArn: l}))
		var arns []string
		for i, c := range out.Certificates {
			arns = append(arns, aws.ToString(c.CertificateArn))
			if aws.ToBool(c.IsDefault) != (i == 0) {
				t.Fatalf("IsDefault of %s (entry %d)", aws.ToString(c.CertificateArn), i)
			}
		}
		return arns
	}
	if got := list(); !slices.Equal(got, []string{certARN + "-default", certARN + "-a", certARN + "-b"}) {
		t.Fatalf("certificates %v", got)
	}
	// DescribeListeners shows the default certificate only; ModifyListener replaces it and keeps the others.
	ls := must[*elb.DescribeListenersOutput](t)(e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{ListenerArns: []string{*l}}))
	if len(ls.Listeners[0].Certificates) != 1 {
		t.Fatalf("described certificates %+v", ls.Listeners[0].Certificates)
	}
	must[*elb.ModifyListenerOutput](t)(e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: l, Certificates: []elbtypes.Certificate{cert("-new")}}))
	if got := list(); !slices.Equal(got, []string{certARN + "-new", certARN + "-a", certARN + "-b"}) {
		t.Fatalf("after ModifyListener %v", got)
	}
	// A listed certificate made the default keeps its list entry.
	must[*elb.ModifyListenerOutput](t)(e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: l, Certificates: []elbtypes.Certificate{cert("-a")}}))
	if got := list(); !slices.Equal(got, []string{certARN + "-a", certARN + "-a", certARN + "-b"}) {
		t.Fatalf("after making a listed certificate the default %v", got)
	}
	must[*elb.ModifyListenerOutput](t)(e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: l, Certificates: []elbtypes.Certificate{cert("-new")}}))
	_, err := e.elb.RemoveListenerCertificates(ctx, &elb.RemoveListenerCertificatesInput{ListenerArn: l, Certificates: []elbtypes.Certificate{cert("-new")}})
	wantCode(t, err, "OperationNotPermitted")
	must[*elb.RemoveListenerCertificatesOutput](t)(e.elb.RemoveListenerCertificates(ctx, &elb.RemoveListenerCertificatesInput{ListenerArn: l, Certificates: []elbtypes.Certificate{cert("-a")}}))
	if got := list(); !slices.Equal(got, []string{certARN + "-new", certARN + "-b"}) {
		t.Fatalf("after remove %v", got)
	}
	// The default certificate can be in the list as well, once (LBC adds it so that SNI offers it),
	// and that entry can be removed; the default stays.
	for range 2 {
		must[*elb.AddListenerCertificatesOutput](t)(e.elb.AddListenerCertificates(ctx, &elb.AddListenerCertificatesInput{ListenerArn: l,
			Certificates: []elbtypes.Certificate{cert("-new")}}))
	}
	if got := list(); !slices.Equal(got, []string{certARN + "-new", certARN + "-b", certARN + "-new"}) {
		t.Fatalf("with the default listed too %v", got)
	}
	must[*elb.RemoveListenerCertificatesOutput](t)(e.elb.RemoveListenerCertificates(ctx, &elb.RemoveListenerCertificatesInput{ListenerArn: l, Certificates: []elbtypes.Certificate{cert("-new")}}))
	if got := list(); !slices.Equal(got, []string{certARN + "-new", certARN + "-b"}) {
		t.Fatalf("after removing the default's entry %v", got)
	}
	_, err = e.elb.CreateListener(ctx, &elb.CreateListenerInput{LoadBalancerArn: lb, Protocol: elbtypes.ProtocolEnumHttps, Port: aws.Int32(8443),
		Certificates: []elbtypes.Certificate{cert("-1"), cert("-2")}, DefaultActions: fixed("404")})
	wantCode(t, err, "ValidationError")
	http := e.createListener(t, *lb, 80, fixed("404")).ListenerArn
	_, err = e.elb.AddListenerCertificates(ctx, &elb.AddListenerCertificatesInput{ListenerArn: http, Certificates: []elbtypes.Certificate{cert("-a")}})
	wantCode(t, err, "InvalidConfigurationRequest")
	_, err = e.elb.DescribeListenerCertificates(ctx, &elb.DescribeListenerCertificatesInput{ListenerArn: aws.String(*l + "0")})
	wantCode(t, err, "ListenerNotFound")
}

// TestAdminStateShowsLoadBalancers: the admin state dump nests listeners and rules under their load balancer
// and, like Describe, never carries an OIDC client secret.
func TestAdminStateShowsLoadBalancers(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	tg := e.createTG(t, "web-tg", "ip", 80)
	must[*elb.CreateListenerOutput](t)(e.elb.CreateListener(ctx, &elb.CreateListenerInput{LoadBalancerArn: lb, Protocol: elbtypes.ProtocolEnumHttps,
		Port: aws.Int32(443), Certificates: []elbtypes.Certificate{{CertificateArn: aws.String(certARN)}},
		DefaultActions: []elbtypes.Action{oidcAction("very-secret-value", false), {Type: elbtypes.ActionTypeEnumForward, Order: aws.Int32(2), TargetGroupArn: aws.String(tg)}}}))
	code, body := adminDo(t, e, "GET", "/_restartsim/state", "", true)
	if code != 200 || !strings.Contains(body, `"loadBalancers":[{"arn":"`+*lb) || !strings.Contains(body, `"listeners":[{`) ||
		!strings.Contains(body, `"isDefault":true`) || !strings.Contains(body, `"subnets":[{`) {
		t.Fatalf("state %d: %.600s", code, body)
	}
	if strings.Contains(body, "very-secret-value") {
		t.Fatal("the admin state leaks the OIDC client secret")
	}
}

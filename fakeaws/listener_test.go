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

const certARN = "arn:aws:acm:us-west-2:123456789012:certificate/0123"

func oidcAction(secret string, useExisting bool) elbtypes.Action {
	return elbtypes.Action{Type: elbtypes.ActionTypeEnumAuthenticateOidc, Order: aws.Int32(1), AuthenticateOidcConfig: &elbtypes.AuthenticateOidcActionConfig{
		Issuer: aws.String("https://idp.example.com"), AuthorizationEndpoint: aws.String("https://idp.example.com/auth"),
		TokenEndpoint: aws.String("https://idp.example.com/token"), UserInfoEndpoint: aws.String("https://idp.example.com/userinfo"),
		ClientId: aws.String("client"), ClientSecret: aws.String(secret), UseExistingClientSecret: aws.Bool(useExisting),
		AuthenticationRequestExtraParams: map[string]string{"prompt": "login"},
	}}
}

func TestListenerActions(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	tg := e.createTG(t, "web-tg", "ip", 8080)
	fwd := e.createListener(t, lb, 80, forwardTo(tg))
	got := fwd.DefaultActions[0]
	if got.Type != elbtypes.ActionTypeEnumForward || aws.ToString(got.TargetGroupArn) != tg || aws.ToInt32(got.Order) != 1 ||
		got.ForwardConfig == nil || aws.ToInt32(got.ForwardConfig.TargetGroups[0].Weight) != 1 {
		t.Fatalf("forward action %+v", got)
	}
	tgs := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tg}}))
	if !slices.Equal(tgs.TargetGroups[0].LoadBalancerArns, []string{lb}) {
		t.Fatalf("target group's load balancers %v, want [%s]", tgs.TargetGroups[0].LoadBalancerArns, lb)
	}
	byLB := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(lb)}))
	if len(byLB.TargetGroups) != 1 || aws.ToString(byLB.TargetGroups[0].TargetGroupArn) != tg {
		t.Fatalf("target groups of the load balancer: %+v", byLB.TargetGroups)
	}

	redirect := e.createListener(t, lb, 81, []elbtypes.Action{{Type: elbtypes.ActionTypeEnumRedirect,
		RedirectConfig: &elbtypes.RedirectActionConfig{Protocol: aws.String("HTTPS"), Port: aws.String("443"), StatusCode: elbtypes.RedirectActionStatusCodeEnumHttp301}}})
	if r := redirect.DefaultActions[0].RedirectConfig; aws.ToString(r.Host) != "#{host}" || aws.ToString(r.Path) != "/#{path}" || aws.ToString(r.Port) != "443" {
		t.Fatalf("redirect %+v", r)
	}
	fr := e.createListener(t, lb, 82, fixed("404")).DefaultActions[0].FixedResponseConfig
	if aws.ToString(fr.StatusCode) != "404" {
		t.Fatalf("fixed response %+v", fr)
	}

	https := must[*elb.CreateListenerOutput](t)(e.elb.CreateListener(ctx, &elb.CreateListenerInput{LoadBalancerArn: aws.String(lb),
		Protocol: elbtypes.ProtocolEnumHttps, Port: aws.Int32(443), Certificates: []elbtypes.Certificate{{CertificateArn: aws.String(certARN)}},
		DefaultActions: []elbtypes.Action{oidcAction("s3cret", false), {Type: elbtypes.ActionTypeEnumForward, Order: aws.Int32(2), TargetGroupArn: aws.String(tg)}}})).Listeners[0]
	if aws.ToString(https.SslPolicy) != "ELBSecurityPolicy-2016-08" || aws.ToString(https.Certificates[0].CertificateArn) != certARN {
		t.Fatalf("https listener %+v", https)
	}
	described := must[*elb.DescribeListenersOutput](t)(e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{ListenerArns: []string{*https.ListenerArn}}))
	o := described.Listeners[0].DefaultActions[0].AuthenticateOidcConfig
	// AWS never returns the client secret; the defaults it fills are described.
	if o == nil || o.ClientSecret != nil || aws.ToString(o.Scope) != "openid" || aws.ToString(o.SessionCookieName) != "AWSELBAuthSessionCookie" ||
		aws.ToInt64(o.SessionTimeout) != 604800 || o.OnUnauthenticatedRequest != elbtypes.AuthenticateOidcActionConditionalBehaviorEnumAuthenticate ||
		o.AuthenticationRequestExtraParams["prompt"] != "login" {
		t.Fatalf("described OIDC config %+v", o)
	}
	// Keeping the existing secret works; naming one too is refused.
	keep := []elbtypes.Action{oidcAction("", true), {Type: elbtypes.ActionTypeEnumForward, Order: aws.Int32(2), TargetGroupArn: aws.String(tg)}}
	keep[0].AuthenticateOidcConfig.ClientSecret = nil
	must[*elb.ModifyListenerOutput](t)(e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: https.ListenerArn, DefaultActions: keep}))
	both := []elbtypes.Action{oidcAction("other", true), keep[1]}
	_, err := e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: https.ListenerArn, DefaultActions: both})
	wantCode(t, err, "InvalidLoadBalancerAction")
	// Authentication needs HTTPS.
	_, err = e.elb.CreateListener(ctx, &elb.CreateListenerInput{LoadBalancerArn: aws.String(lb), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(8443),
		DefaultActions: []elbtypes.Action{oidcAction("s", false), keep[1]}})
	wantCode(t, err, "InvalidLoadBalancerAction")
}

func TestListenerErrors(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	tg := e.createTG(t, "web-tg", "ip", 8080)
	l := e.createListener(t, lb, 80, forwardTo(tg))
	create := func(in elb.CreateListenerInput) error {
		if in.LoadBalancerArn == nil {
			in.LoadBalancerArn = aws.String(lb)
		}
		if in.Protocol == "" {
			in.Protocol = elbtypes.ProtocolEnumHttp
		}
		_, err := e.elb.CreateListener(ctx, &in)
		return err
	}
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(80), DefaultActions: fixed("200")}), "DuplicateListener")
	wantCode(t, create(elb.CreateListenerInput{LoadBalancerArn: aws.String(lb + "0"), Port: aws.Int32(90), DefaultActions: fixed("200")}), "LoadBalancerNotFound")
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(90), DefaultActions: forwardTo(tg + "0")}), "TargetGroupNotFound")
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(90), Protocol: elbtypes.ProtocolEnumTcp, DefaultActions: fixed("200")}), "ValidationError")
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(443), Protocol: elbtypes.ProtocolEnumHttps, DefaultActions: fixed("200")}), "ValidationError")
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(0), DefaultActions: fixed("200")}), "ValidationError")
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(90), DefaultActions: fixed("302")}), "ValidationError")
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(90), DefaultActions: []elbtypes.Action{{Type: elbtypes.ActionTypeEnumForward}}}), "InvalidLoadBalancerAction")
	tcpTG := must[*elb.CreateTargetGroupOutput](t)(e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String("tcp"),
		Protocol: elbtypes.ProtocolEnumTcp, Port: aws.Int32(80), VpcId: aws.String(e.srv.DefaultVPCID())}))
	wantCode(t, create(elb.CreateListenerInput{Port: aws.Int32(90), DefaultActions: forwardTo(*tcpTG.TargetGroups[0].TargetGroupArn)}), "IncompatibleProtocols")
	// A target group serves one load balancer.
	other := aws.ToString(e.createLB(t, "other", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	wantCode(t, create(elb.CreateListenerInput{LoadBalancerArn: aws.String(other), Port: aws.Int32(80), DefaultActions: forwardTo(tg)}), "TargetGroupAssociationLimit")

	_, err := e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: l.ListenerArn, Port: aws.Int32(80)})
	if err != nil {
		t.Fatalf("modify to its own port: %v", err)
	}
	e.createListener(t, lb, 81, fixed("200"))
	_, err = e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: l.ListenerArn, Port: aws.Int32(81)})
	wantCode(t, err, "DuplicateListener")
	mod := must[*elb.ModifyListenerOutput](t)(e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: l.ListenerArn, Port: aws.Int32(8080), DefaultActions: fixed("503")}))
	if aws.ToInt32(mod.Listeners[0].Port) != 8080 || mod.Listeners[0].DefaultActions[0].Type != elbtypes.ActionTypeEnumFixedResponse {
		t.Fatalf("modified %+v", mod.Listeners[0])
	}
	tgs := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tg}}))
	if len(tgs.TargetGroups[0].LoadBalancerArns) != 0 {
		t.Fatal("a group no action forwards to still lists the load balancer")
	}
	must[*elb.DeleteListenerOutput](t)(e.elb.DeleteListener(ctx, &elb.DeleteListenerInput{ListenerArn: l.ListenerArn}))
	_, err = e.elb.DeleteListener(ctx, &elb.DeleteListenerInput{ListenerArn: l.ListenerArn})
	wantCode(t, err, "ListenerNotFound")
	_, err = e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{LoadBalancerArn: aws.String(lb + "0")})
	wantCode(t, err, "LoadBalancerNotFound")
	_, err = e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{})
	wantCode(t, err, "ValidationError")
}

func TestListenerPaginationAndAttributes(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lb := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	var want []int32
	for i := range 5 {
		port := int32(9000 - i) // created in descending order, listed by port
		e.createListener(t, lb, port, fixed(fmt.Sprint(200+i)))
		want = append([]int32{port}, want...)
	}
	var got []int32
	p := elb.NewDescribeListenersPaginator(e.elb, &elb.DescribeListenersInput{LoadBalancerArn: aws.String(lb), PageSize: aws.Int32(2)})
	for p.HasMorePages() {
		for _, l := range must[*elb.DescribeListenersOutput](t)(p.NextPage(ctx)).Listeners {
			got = append(got, aws.ToInt32(l.Port))
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("ports %v, want %v", got, want)
	}
	l := must[*elb.DescribeListenersOutput](t)(e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{LoadBalancerArn: aws.String(lb)})).Listeners[0].ListenerArn
	must[*elb.ModifyListenerAttributesOutput](t)(e.elb.ModifyListenerAttributes(ctx, &elb.ModifyListenerAttributesInput{ListenerArn: l,
		Attributes: []elbtypes.ListenerAttribute{{Key: aws.String("routing.http.response.server.enabled"), Value: aws.String("false")}}}))
	attrs := must[*elb.DescribeListenerAttributesOutput](t)(e.elb.DescribeListenerAttributes(ctx, &elb.DescribeListenerAttributesInput{ListenerArn: l}))
	if v := attrValue(attrs.Attributes, "routing.http.response.server.enabled"); v != "false" {
		t.Fatalf("listener attribute %q", v)
	}
	_, err := e.elb.DescribeListenerAttributes(ctx, &elb.DescribeListenerAttributesInput{ListenerArn: aws.String(*l + "0")})
	wantCode(t, err, "ListenerNotFound")

	tg := e.createTG(t, "attrs", "ip", 80)
	must[*elb.ModifyTargetGroupAttributesOutput](t)(e.elb.ModifyTargetGroupAttributes(ctx, &elb.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(tg),
		Attributes: []elbtypes.TargetGroupAttribute{{Key: aws.String("deregistration_delay.timeout_seconds"), Value: aws.String("30")}}}))
	tga := must[*elb.DescribeTargetGroupAttributesOutput](t)(e.elb.DescribeTargetGroupAttributes(ctx, &elb.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(tg)}))
	if attrValue(tga.Attributes, "deregistration_delay.timeout_seconds") != "30" || attrValue(tga.Attributes, "stickiness.type") != "lb_cookie" {
		t.Fatalf("target group attributes %+v", tga.Attributes)
	}
	_, err = e.elb.ModifyTargetGroupAttributes(ctx, &elb.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(tg),
		Attributes: []elbtypes.TargetGroupAttribute{{Key: aws.String("proxy_protocol_v2.enabled"), Value: aws.String("true")}}})
	wantCode(t, err, "ValidationError") // a network target group's attribute
	_, err = e.elb.DescribeTargetGroupAttributes(ctx, &elb.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(tg + "0")})
	wantCode(t, err, "TargetGroupNotFound")
}

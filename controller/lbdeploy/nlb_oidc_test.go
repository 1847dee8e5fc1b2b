package lbdeploy_test

import (
	"reflect"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
)

func nlbService() corev1.Service {
	return corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "games", Name: "echo", Annotations: map[string]string{
			lbmodel.AnnotationLBType: "external", lbmodel.AnnotationNLBTargetType: "ip",
			lbmodel.AnnotationServiceTGAttributes: "deregistration_delay.timeout_seconds=30",
		}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{
			{Name: "tcp", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP},
			{Name: "udp", Port: 53, TargetPort: intstr.FromInt32(5353), Protocol: corev1.ProtocolUDP},
		}},
	}
}

func TestDeployServiceNLB(t *testing.T) {
	e := newEnv(t)
	st, _, err := lbmodel.BuildService(lbmodel.ServiceInput{ClusterName: cluster, Service: nlbService()})
	if err != nil {
		t.Fatal(err)
	}
	res := e.deploy(t, st)
	lbs := e.srv.LoadBalancers()
	if len(lbs) != 1 || lbs[0].Type != lbmodel.TypeNetwork || lbs[0].Scheme != lbmodel.SchemeInternal || tagMap(lbs[0].Tags)["service.k8s.aws/stack"] != "games/echo" {
		t.Fatalf("load balancers = %+v", lbs)
	}
	ls, err := e.srv.Listeners(res.LoadBalancerARN)
	if err != nil || len(ls) != 2 {
		t.Fatalf("listeners = %+v (%v)", ls, err)
	}
	byPort := map[int32]string{}
	for _, l := range ls {
		byPort[l.Port] = l.Protocol + "->" + l.DefaultActions[0].TargetGroupARN
	}
	want := map[int32]string{80: "TCP->" + res.TargetGroupARNs["games/echo:80"], 53: "UDP->" + res.TargetGroupARNs["games/echo:53"]}
	if !reflect.DeepEqual(byPort, want) {
		t.Fatalf("listeners = %v, want %v", byPort, want)
	}
	for _, tg := range e.srv.TargetGroups() {
		if tg.Attributes["deregistration_delay.timeout_seconds"] != "30" || tg.HealthCheck.Protocol != "TCP" {
			t.Fatalf("target group %s: attributes %v, health check %+v", tg.Name, tg.Attributes, tg.HealthCheck)
		}
	}
	n := e.srv.Recorder().Len()
	e.deploy(t, st)
	if ops := mutations(e.operations(n)); len(ops) > 0 {
		t.Fatalf("second deploy of the NLB called %v", ops)
	}
	if err := e.dep.Delete(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	if len(e.srv.LoadBalancers()) != 0 || len(e.srv.TargetGroups()) != 0 {
		t.Fatal("delete left resources of the NLB stack")
	}
}

// oidcShop is the shop behind HTTPS with OIDC authentication.
func oidcShop(secret string) *shop {
	s := newShop()
	s.ing.Annotations[lbmodel.AnnotationListenPorts] = `[{"HTTP":80},{"HTTPS":443}]`
	s.ing.Annotations[lbmodel.AnnotationCertificateARN] = certificateOne + "," + certificateTwo
	s.ing.Annotations[lbmodel.AnnotationAuthType] = "oidc"
	s.ing.Annotations[lbmodel.AnnotationAuthIDPOIDC] = `{"issuer":"https://idp.example.com","authorizationEndpoint":"https://idp.example.com/auth",` +
		`"tokenEndpoint":"https://idp.example.com/token","userInfoEndpoint":"https://idp.example.com/userinfo","secretName":"oidc"}`
	s.secrets = []corev1.Secret{{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "oidc"},
		Data: map[string][]byte{"clientID": []byte("client-1"), "clientSecret": []byte(secret)}}}
	return s
}

func TestDeployHTTPSWithOIDC(t *testing.T) {
	e := newEnv(t)
	res := e.deploy(t, oidcShop("first").stack(t))
	ls, _ := e.srv.Listeners(res.LoadBalancerARN)
	if len(ls) != 2 {
		t.Fatalf("listeners = %+v, want HTTP:80 and HTTPS:443", ls)
	}
	for _, l := range ls {
		rules := nonDefaultRules(t, e, l.ARN)
		wantAuth := l.Port == 443 // LBC authenticates on HTTPS listeners only
		if len(rules) != 2 || (rules[0].Actions[0].Type == lbmodel.ActionAuthenticateOIDC) != wantAuth {
			t.Fatalf("listener %d rules = %+v, authenticate %v", l.Port, rules, wantAuth)
		}
		if wantAuth && rules[0].Actions[0].OIDC.ClientID != "client-1" {
			t.Fatalf("oidc config = %+v", rules[0].Actions[0].OIDC)
		}
	}
	n := e.srv.Recorder().Len()
	e.deploy(t, oidcShop("rotated").stack(t))
	ops := mutations(e.operations(n))
	// AWS never describes the client secret, so the two authenticated rules are written again; nothing else.
	if !reflect.DeepEqual(ops, []string{"ModifyRule", "ModifyRule"}) {
		t.Fatalf("redeploy with a rotated secret called %v, want ModifyRule on the two authenticated rules", ops)
	}
	if got := listenerCertificates(t, e, ls, 443); !reflect.DeepEqual(got, []string{certificateTwo}) {
		t.Fatalf("extra certificates = %v, want the second one", got)
	}

	one := oidcShop("rotated")
	one.ing.Annotations[lbmodel.AnnotationCertificateARN] = certificateOne
	n = e.srv.Recorder().Len()
	e.deploy(t, one.stack(t))
	if ops := mutations(e.operations(n)); count(ops, "RemoveListenerCertificates") != 1 || count(ops, "ModifyListener") != 0 {
		t.Fatalf("dropping the extra certificate called %v", ops)
	}
	if got := listenerCertificates(t, e, ls, 443); len(got) != 0 {
		t.Fatalf("extra certificates = %v after dropping them", got)
	}
}

// listenerCertificates are the non-default certificates of the listener on port, as AWS describes them.
func listenerCertificates(t *testing.T, e *env, ls []fakeaws.Listener, port int32) []string {
	t.Helper()
	for _, l := range ls {
		if l.Port != port {
			continue
		}
		out, err := e.elb.DescribeListenerCertificates(ctx, &elbv2.DescribeListenerCertificatesInput{ListenerArn: aws.String(l.ARN)})
		if err != nil {
			t.Fatal(err)
		}
		var extra []string
		for _, c := range out.Certificates {
			if !aws.ToBool(c.IsDefault) {
				extra = append(extra, aws.ToString(c.CertificateArn))
			}
		}
		return extra
	}
	t.Fatalf("no listener on port %d", port)
	return nil
}

func TestSecurityGroupAndIPAddressTypeChanges(t *testing.T) {
	e := newEnv(t)
	var sgs []string
	for _, name := range []string{"alb-a", "alb-b"} {
		sg, err := e.srv.CreateSecurityGroup(name, "load balancer", "")
		if err != nil {
			t.Fatal(err)
		}
		sgs = append(sgs, sg.ID)
	}
	s := newShop()
	s.ing.Annotations[lbmodel.AnnotationScheme] = lbmodel.SchemeInternetFacing
	s.ing.Annotations[lbmodel.AnnotationSecurityGroups] = sgs[0]
	e.deploy(t, s.stack(t))
	if got := e.srv.LoadBalancers()[0].SecurityGroupIDs; !reflect.DeepEqual(got, sgs[:1]) {
		t.Fatalf("security groups = %v, want %v", got, sgs[:1])
	}
	s.ing.Annotations[lbmodel.AnnotationSecurityGroups] = sgs[1]
	s.ing.Annotations[lbmodel.AnnotationIPAddressType] = "dualstack"
	n := e.srv.Recorder().Len()
	e.deploy(t, s.stack(t))
	if ops := mutations(e.operations(n)); !reflect.DeepEqual(ops, []string{"SetSecurityGroups", "SetIpAddressType"}) {
		t.Fatalf("changing security groups and address type called %v", ops)
	}
	lb := e.srv.LoadBalancers()[0]
	if !reflect.DeepEqual(lb.SecurityGroupIDs, sgs[1:]) || lb.IPAddressType != "dualstack" {
		t.Fatalf("load balancer after the change: security groups %v, address type %s", lb.SecurityGroupIDs, lb.IPAddressType)
	}
}

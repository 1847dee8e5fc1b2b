package observe

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/oracle/lbexpect"
)

// The objects are written as users write them, annotation keys spelled out.

func prefixPath(path, svc string) networkingv1.HTTPIngressPath {
	return networkingv1.HTTPIngressPath{Path: path, PathType: ptr.To(networkingv1.PathTypePrefix),
		Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{Name: svc,
			Port: networkingv1.ServiceBackendPort{Number: 80}}}}
}

func albIngress(ns, name string, ann map[string]string, host string, paths ...networkingv1.HTTPIngressPath) networkingv1.Ingress {
	return networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: ann},
		Spec: networkingv1.IngressSpec{IngressClassName: ptr.To("alb"), Rules: []networkingv1.IngressRule{{Host: host,
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: paths}}}}}}
}

func backendService(ns, name string) corev1.Service {
	return corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}}}}
}

// testCertificate is the ACM certificate of the test Ingresses' HTTPS listeners.
const testCertificate = "arn:aws:acm:us-west-2:123456789012:certificate/one"

func oidcSecret(secret string) corev1.Secret {
	return corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "oidc"},
		Data: map[string][]byte{"clientID": []byte("client-1"), "clientSecret": []byte(secret)}}
}

const oidcAnnotation = `{"issuer":"https://idp.example.com","authorizationEndpoint":"https://idp.example.com/auth",` +
	`"tokenEndpoint":"https://idp.example.com/token","userInfoEndpoint":"https://idp.example.com/userinfo","secretName":"oidc"}`

// oidcObjects is an HTTPS ALB Ingress of class alb with OIDC authentication, its backend and the
// OIDC client Secret.
func oidcObjects(secret string) LoadBalancerObjects {
	ing := albIngress("shop", "web", map[string]string{
		"alb.ingress.kubernetes.io/target-type":     "ip",
		"alb.ingress.kubernetes.io/listen-ports":    `[{"HTTPS":443}]`,
		"alb.ingress.kubernetes.io/certificate-arn": testCertificate,
		"alb.ingress.kubernetes.io/auth-type":       "oidc",
		"alb.ingress.kubernetes.io/auth-idp-oidc":   oidcAnnotation,
	}, "shop.example.com", prefixPath("/cart", "cart"))
	return LoadBalancerObjects{ClusterName: "sim", IngressClass: "alb", Ingresses: []networkingv1.Ingress{ing},
		Services: []corev1.Service{backendService("shop", "cart")}, Secrets: []corev1.Secret{oidcSecret(secret)}}
}

// fleetObjects are the shapes the simulated fleet writes: an Ingress group of two members, one on
// HTTP with two paths, one also on HTTPS with OIDC, each path its own backend; and a Service of
// LBC's load balancer class with ip targets.
func fleetObjects() LoadBalancerObjects {
	group := func(order string) map[string]string {
		return map[string]string{"alb.ingress.kubernetes.io/group.name": "g", "alb.ingress.kubernetes.io/group.order": order,
			"alb.ingress.kubernetes.io/scheme": "internet-facing", "alb.ingress.kubernetes.io/target-type": "ip",
			"alb.ingress.kubernetes.io/healthcheck-path": "/healthz", "alb.ingress.kubernetes.io/listen-ports": `[{"HTTP": 80}]`}
	}
	a := albIngress("shop", "a", group("1"), "a.example.com", prefixPath("/b0", "a-b0"), prefixPath("/b1", "a-b1"))
	b := albIngress("shop", "b", group("2"), "b.example.com", prefixPath("/c0", "b-c0"))
	b.Annotations["alb.ingress.kubernetes.io/listen-ports"] = `[{"HTTP": 80}, {"HTTPS": 443}]`
	b.Annotations["alb.ingress.kubernetes.io/certificate-arn"] = testCertificate
	b.Annotations["alb.ingress.kubernetes.io/auth-type"] = "oidc"
	b.Annotations["alb.ingress.kubernetes.io/auth-idp-oidc"] = oidcAnnotation
	nlb := backendService("shop", "nlb")
	nlb.Spec.Type, nlb.Spec.LoadBalancerClass = corev1.ServiceTypeLoadBalancer, ptr.To("service.k8s.aws/nlb")
	nlb.Annotations = map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "external",
		"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
		"service.beta.kubernetes.io/aws-load-balancer-scheme":          "internet-facing"}
	return LoadBalancerObjects{ClusterName: "sim", IngressClass: "alb", Ingresses: []networkingv1.Ingress{a, b},
		Services: []corev1.Service{backendService("shop", "a-b0"), backendService("shop", "a-b1"), backendService("shop", "b-c0"), nlb},
		Secrets:  []corev1.Secret{oidcSecret("s3cret")}}
}

func kinds(vs []results.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Kind)
	}
	return out
}

func expected(t *testing.T, o LoadBalancerObjects) []lbexpect.LoadBalancer {
	t.Helper()
	want, bad := ExpectedLoadBalancers(o)
	if len(bad) != 0 {
		t.Fatalf("objects invalid: %+v", bad)
	}
	return want
}

// afterProvisioning is a scenario time at which every load balancer created by then is active.
func afterProvisioning(now time.Time) time.Time { return now.Add(5*time.Second + time.Millisecond) }

// The check passes on a stack deployed as the objects ask, and names what differs once the objects
// moved on without AWS following: a rotated client secret, a rule that is gone, a load balancer
// still provisioning.
func TestCheckLoadBalancersAgainstFakeAWS(t *testing.T) {
	ctx := context.Background()
	srv, elb, dep := startDeployer(t)
	objs := oidcObjects("s3cret-1")
	want := expected(t, objs)
	if got := kinds(CheckLoadBalancers(srv, want, srv.Now())); len(got) != 1 || got[0] != "lb-missing" {
		t.Fatalf("before the deploy: %v, want lb-missing", got)
	}
	stacks := referenceStacks(t, objs)
	deployStacks(t, dep, stacks)
	if got := kinds(CheckLoadBalancers(srv, want, srv.Now())); len(got) != 1 || got[0] != "lb-not-active" {
		t.Fatalf("right after the deploy: %v, want lb-not-active (provisioning)", got)
	}
	later := afterProvisioning(srv.Now())
	if got := CheckLoadBalancers(srv, want, later); len(got) != 0 {
		t.Fatalf("deployed as asked: %+v, want none", got)
	}
	rotated := expected(t, oidcObjects("s3cret-2"))
	if got := CheckLoadBalancers(srv, rotated, later); len(got) != 1 || got[0].Kind != "oidc-secret-stale" || strings.Contains(got[0].Detail, "s3cret") {
		t.Fatalf("secret rotated, AWS unchanged: %+v, want oidc-secret-stale naming no secret", got)
	}
	lbs := srv.LoadBalancers()
	ls, _ := srv.Listeners(lbs[0].ARN)
	rules, _ := srv.Rules(ls[0].ARN)
	// A rule forwarding to a target group tagged as the stack's but checking another path (one a
	// controller left behind) differs, whatever its name.
	tg := stacks[0].TargetGroups[0]
	var tags []elbtypes.Tag
	for k, v := range tg.Tags {
		tags = append(tags, elbtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	stale, err := elb.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{Name: aws.String("stale"), Protocol: elbtypes.ProtocolEnum(tg.Protocol),
		Port: aws.Int32(tg.Port), TargetType: elbtypes.TargetTypeEnum(tg.TargetType), VpcId: aws.String(srv.DefaultVPCID()), Tags: tags,
		HealthCheckPath: aws.String("/stale")})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.IsDefault {
			continue
		}
		var in []elbtypes.Action
		for _, a := range r.Actions {
			switch a.Type {
			case lbexpect.ActionForward:
				in = append(in, elbtypes.Action{Type: elbtypes.ActionTypeEnumForward, Order: aws.Int32(a.Order), TargetGroupArn: stale.TargetGroups[0].TargetGroupArn})
			case lbexpect.ActionAuthenticateOIDC:
				o := a.OIDC
				in = append(in, elbtypes.Action{Type: elbtypes.ActionTypeEnumAuthenticateOidc, Order: aws.Int32(a.Order),
					AuthenticateOidcConfig: &elbtypes.AuthenticateOidcActionConfig{Issuer: aws.String(o.Issuer), ClientId: aws.String(o.ClientID),
						AuthorizationEndpoint: aws.String(o.AuthorizationEndpoint), TokenEndpoint: aws.String(o.TokenEndpoint),
						UserInfoEndpoint: aws.String(o.UserInfoEndpoint), UseExistingClientSecret: aws.Bool(true),
						Scope: aws.String(o.Scope), SessionCookieName: aws.String(o.SessionCookieName), SessionTimeout: aws.Int64(o.SessionTimeout),
						OnUnauthenticatedRequest: elbtypes.AuthenticateOidcActionConditionalBehaviorEnum(o.OnUnauthenticatedRequest)}})
			}
		}
		if _, err := elb.ModifyRule(ctx, &elbv2.ModifyRuleInput{RuleArn: aws.String(r.ARN), Actions: in}); err != nil {
			t.Fatal(err)
		}
	}
	if got := CheckLoadBalancers(srv, want, later); len(got) != 1 || got[0].Kind != "rule-differs" || !strings.Contains(got[0].Detail, "forwards to stale") {
		t.Fatalf("rule forwarding to a stale target group: %+v, want rule-differs naming it", got)
	}
	for _, r := range rules {
		if !r.IsDefault {
			if _, err := elb.DeleteRule(ctx, &elbv2.DeleteRuleInput{RuleArn: aws.String(r.ARN)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := kinds(CheckLoadBalancers(srv, want, later)); len(got) == 0 || got[0] != "rule-missing" {
		t.Fatalf("rule deleted out of band: %v, want rule-missing", got)
	}
}

// Objects LBC cannot deploy are a violation of their own, naming the stack.
func TestExpectedLoadBalancersNameInvalidObjects(t *testing.T) {
	o := oidcObjects("s3cret")
	o.Secrets = nil
	want, bad := ExpectedLoadBalancers(o)
	if len(want) != 0 || len(bad) != 1 || bad[0].Kind != "lb-invalid-objects" || bad[0].TGB != "ingress/shop/web" {
		t.Fatalf("expected %+v, violations %+v; want one lb-invalid-objects of ingress/shop/web", want, bad)
	}
}

// The reference controller's deployment of the fleet's shapes meets the independent expectation,
// and each way of deploying them wrongly is caught: a check that cannot fail checks nothing.
func TestCheckCatchesWrongDeployments(t *testing.T) {
	objs := fleetObjects()
	want := expected(t, objs)
	ingressStack := func(stacks []lbmodel.Stack) *lbmodel.Stack { return &stacks[0] }
	nlbStack := func(stacks []lbmodel.Stack) *lbmodel.Stack { return &stacks[1] }
	rule := func(st *lbmodel.Stack, port, priority int32) *lbmodel.Rule {
		i := slices.IndexFunc(st.Rules, func(r lbmodel.Rule) bool { return r.ListenerPort == port && r.Priority == priority })
		if i < 0 {
			t.Fatalf("stack %s has no rule %d:%d", st.ID.Name, port, priority)
		}
		return &st.Rules[i]
	}
	b0 := lbmodel.IngressTargetGroupID("shop", "a", "a-b0", intstr.FromInt32(80))
	b1 := lbmodel.IngressTargetGroupID("shop", "a", "a-b1", intstr.FromInt32(80))
	for _, tc := range []struct {
		name   string
		mutate func([]lbmodel.Stack) []lbmodel.Stack
		want   []string
	}{
		{"as the objects ask", func(s []lbmodel.Stack) []lbmodel.Stack { return s }, nil},
		{"no network load balancer", func(s []lbmodel.Stack) []lbmodel.Stack { return s[:1] }, []string{"lb-missing"}},
		{"another scheme", func(s []lbmodel.Stack) []lbmodel.Stack {
			ingressStack(s).LoadBalancer.Scheme = lbmodel.SchemeInternal
			return s
		}, []string{"lb-differs"}},
		{"a listener on the wrong port", func(s []lbmodel.Stack) []lbmodel.Stack {
			nlbStack(s).Listeners[0].Port = 81
			return s
		}, []string{"listener-missing"}},
		{"another default action", func(s []lbmodel.Stack) []lbmodel.Stack {
			ingressStack(s).Listeners[0].DefaultAction.FixedResponse = &lbmodel.FixedResponse{StatusCode: "503", ContentType: "text/plain"}
			return s
		}, []string{"listener-differs"}},
		{"a rule missing", func(s []lbmodel.Stack) []lbmodel.Stack {
			st := ingressStack(s)
			st.Rules = slices.DeleteFunc(st.Rules, func(r lbmodel.Rule) bool { return r.ListenerPort == 80 && r.Priority == 2 })
			return s
		}, []string{"rule-missing"}},
		{"rules in another order", func(s []lbmodel.Stack) []lbmodel.Stack {
			st := ingressStack(s)
			rule(st, 80, 1).Priority, rule(st, 80, 2).Priority = 2, 1
			return s
		}, []string{"rule-differs", "rule-differs"}},
		{"another path", func(s []lbmodel.Stack) []lbmodel.Stack {
			rule(ingressStack(s), 80, 3).Conditions[1].Values = []string{"/c0"}
			return s
		}, []string{"rule-differs"}},
		{"forward to another backend", func(s []lbmodel.Stack) []lbmodel.Stack {
			rule(ingressStack(s), 80, 1).Actions[0].TargetGroupID = b1
			return s
		}, []string{"rule-differs"}},
		{"another health check path", func(s []lbmodel.Stack) []lbmodel.Stack {
			st := ingressStack(s)
			st.TargetGroups[slices.IndexFunc(st.TargetGroups, func(tg lbmodel.TargetGroup) bool { return tg.ID == b0 })].HealthCheck.Path = "/"
			return s
		}, []string{"rule-differs"}},
		{"no authentication", func(s []lbmodel.Stack) []lbmodel.Stack {
			r := rule(ingressStack(s), 443, 1)
			r.Actions = r.Actions[1:]
			return s
		}, []string{"rule-differs"}},
		{"a rule not asked for", func(s []lbmodel.Stack) []lbmodel.Stack {
			st := ingressStack(s)
			extra := *rule(st, 80, 1)
			extra.Priority, extra.Conditions = 99, []lbmodel.Condition{{Field: lbmodel.FieldPathPattern, Values: []string{"/gone"}}}
			st.Rules = append(st.Rules, extra)
			return s
		}, []string{"rule-extra"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, _, dep := startDeployer(t)
			stacks := referenceStacks(t, objs)
			if len(stacks) != 2 || stacks[0].ID.Kind != lbmodel.KindIngress || stacks[1].ID.Kind != lbmodel.KindService {
				t.Fatalf("reference stacks %+v, want the group's and the Service's", stacks)
			}
			deployStacks(t, dep, tc.mutate(stacks))
			got := CheckLoadBalancers(srv, want, afterProvisioning(srv.Now()))
			if !slices.Equal(kinds(got), tc.want) {
				t.Fatalf("violations %+v, want kinds %v", got, tc.want)
			}
		})
	}
}

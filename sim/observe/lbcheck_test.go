package observe

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lbdeploy"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/reports/results"
)

// oidcObjects is an HTTPS ALB Ingress of class alb with OIDC authentication, its backend and the
// OIDC client Secret.
func oidcObjects(secret string) LoadBalancerObjects {
	pt := networkingv1.PathTypePrefix
	class := "alb"
	ing := networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Annotations: map[string]string{
			lbmodel.AnnotationTargetType:     "ip",
			lbmodel.AnnotationListenPorts:    `[{"HTTPS":443}]`,
			lbmodel.AnnotationCertificateARN: "arn:aws:acm:us-west-2:123456789012:certificate/one",
			lbmodel.AnnotationAuthType:       "oidc",
			lbmodel.AnnotationAuthIDPOIDC: `{"issuer":"https://idp.example.com","authorizationEndpoint":"https://idp.example.com/auth",` +
				`"tokenEndpoint":"https://idp.example.com/token","userInfoEndpoint":"https://idp.example.com/userinfo","secretName":"oidc"}`,
		}},
		Spec: networkingv1.IngressSpec{IngressClassName: &class, Rules: []networkingv1.IngressRule{{Host: "shop.example.com",
			IngressRuleValue: networkingv1.IngressRuleValue{HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{
				Path: "/cart", PathType: &pt, Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
					Name: "cart", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}}},
	}
	svc := corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "cart"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP}}}}
	sec := corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "oidc"},
		Data: map[string][]byte{"clientID": []byte("client-1"), "clientSecret": []byte(secret)}}
	return LoadBalancerObjects{ClusterName: "sim", IngressClass: "alb", Ingresses: []networkingv1.Ingress{ing},
		Services: []corev1.Service{svc}, Secrets: []corev1.Secret{sec}}
}

func kinds(vs []results.Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Kind)
	}
	return out
}

// The check passes on a stack deployed as modelled, and names what differs once the objects moved on
// without AWS following: a rotated client secret, a rule that is gone, a load balancer still
// provisioning.
// startDeployer starts an in-process fakeaws and returns it with an ELBv2 client of it and a
// deployer for cluster "sim".
func startDeployer(t *testing.T) (*fakeaws.Server, *elbv2.Client, *lbdeploy.Deployer) {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "AKID", SecretAccessKey: "secret", Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cfg := aws.Config{Region: "us-west-2", BaseEndpoint: aws.String(url), Credentials: credentials.NewStaticCredentialsProvider("AKID", "secret", "")}
	elb := elbv2.NewFromConfig(cfg)
	dep, err := lbdeploy.New(lbdeploy.Config{ClusterName: "sim", VpcID: srv.DefaultVPCID(), ELB: elb, EC2: ec2.NewFromConfig(cfg)})
	if err != nil {
		t.Fatal(err)
	}
	return srv, elb, dep
}

func TestCheckLoadBalancersAgainstFakeAWS(t *testing.T) {
	ctx := context.Background()
	srv, elb, dep := startDeployer(t)
	objs := oidcObjects("s3cret-1")
	stacks, bad := DesiredStacks(objs)
	if len(stacks) != 1 || len(bad) != 0 {
		t.Fatalf("desired stacks %d, model violations %+v", len(stacks), bad)
	}
	if got := kinds(CheckLoadBalancers(srv, stacks, srv.Now())); len(got) != 1 || got[0] != "lb-missing" {
		t.Fatalf("before the deploy: %v, want lb-missing", got)
	}
	if _, err := dep.Deploy(ctx, stacks[0]); err != nil {
		t.Fatal(err)
	}
	if got := kinds(CheckLoadBalancers(srv, stacks, srv.Now())); len(got) != 1 || got[0] != "lb-not-active" {
		t.Fatalf("right after the deploy: %v, want lb-not-active (provisioning)", got)
	}
	later := srv.Now().Add(5*time.Second + time.Millisecond) // past the default provisioning time
	if got := CheckLoadBalancers(srv, stacks, later); len(got) != 0 {
		t.Fatalf("deployed as modelled: %+v, want none", got)
	}
	rotated, _ := DesiredStacks(oidcObjects("s3cret-2"))
	if got := kinds(CheckLoadBalancers(srv, rotated, later)); len(got) != 1 || got[0] != "oidc-secret-stale" {
		t.Fatalf("secret rotated, AWS unchanged: %v, want oidc-secret-stale", got)
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
		acts := slices.Clone(r.Actions)
		var in []elbtypes.Action
		for _, a := range acts {
			switch a.Type {
			case lbmodel.ActionForward:
				in = append(in, elbtypes.Action{Type: elbtypes.ActionTypeEnumForward, Order: aws.Int32(a.Order), TargetGroupArn: stale.TargetGroups[0].TargetGroupArn})
			case lbmodel.ActionAuthenticateOIDC:
				o := a.OIDC
				in = append(in, elbtypes.Action{Type: elbtypes.ActionTypeEnumAuthenticateOidc, Order: aws.Int32(a.Order),
					AuthenticateOidcConfig: &elbtypes.AuthenticateOidcActionConfig{Issuer: aws.String(o.Issuer), ClientId: aws.String(o.ClientID),
						AuthorizationEndpoint: aws.String(o.AuthorizationEndpoint), TokenEndpoint: aws.String(o.TokenEndpoint),
						UserInfoEndpoint: aws.String(o.UserInfoEndpoint), UseExistingClientSecret: aws.Bool(true)}})
			}
		}
		if _, err := elb.ModifyRule(ctx, &elbv2.ModifyRuleInput{RuleArn: aws.String(r.ARN), Actions: in}); err != nil {
			t.Fatal(err)
		}
	}
	if got := CheckLoadBalancers(srv, stacks, later); len(got) != 1 || got[0].Kind != "rule-differs" || !strings.Contains(got[0].Detail, "forwards to stale") {
		t.Fatalf("rule forwarding to a stale target group: %+v, want rule-differs naming it", got)
	}
	for _, r := range rules {
		if !r.IsDefault {
			if _, err := elb.DeleteRule(ctx, &elbv2.DeleteRuleInput{RuleArn: aws.String(r.ARN)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if got := kinds(CheckLoadBalancers(srv, stacks, later)); len(got) == 0 || got[0] != "rule-missing" {
		t.Fatalf("rule deleted out of band: %v, want rule-missing", got)
	}
}

// The desired stacks follow the IngressClassParams the IngressClass names, as the controller's do;
// parameters named but missing are a model violation.
func TestDesiredStacksReadTheClassParams(t *testing.T) {
	o := oidcObjects("s3cret")
	o.IngressClasses = []networkingv1.IngressClass{{ObjectMeta: metav1.ObjectMeta{Name: "alb"}, Spec: networkingv1.IngressClassSpec{
		Controller: lbmodel.IngressClassController, Parameters: &networkingv1.IngressClassParametersReference{
			APIGroup: ptr.To(v1beta1.GroupVersion.Group), Kind: v1beta1.IngressClassParamsKind, Name: "team"}}}}
	if _, bad := DesiredStacks(o); len(bad) != 1 || bad[0].Kind != "lb-model" {
		t.Fatalf("parameters missing: violations %+v, want one lb-model", bad)
	}
	o.ClassParams = []v1beta1.IngressClassParams{{ObjectMeta: metav1.ObjectMeta{Name: "team"},
		Spec: v1beta1.IngressClassParamsSpec{Tags: []v1beta1.Tag{{Key: "team", Value: "a"}}}}}
	stacks, bad := DesiredStacks(o)
	if len(stacks) != 1 || len(bad) != 0 || stacks[0].LoadBalancer.Tags["team"] != "a" {
		t.Fatalf("stacks %+v, violations %+v; want the load balancer tagged team=a", stacks, bad)
	}
}

package lbmodel

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestGroupOrderingDecidesRulePriorities(t *testing.T) {
	grouped := func(order string) map[string]string {
		return map[string]string{AnnotationGroupName: "shared", AnnotationGroupOrder: order}
	}
	ings := []networkingv1.Ingress{
		testIngress("b", "late", "late.example.com", "/", "svc", 80, grouped("10")),
		testIngress("a", "zeta", "zeta.example.com", "/", "svc", 80, grouped("")),
		testIngress("a", "alpha", "alpha.example.com", "/", "svc", 80, grouped("")),
		testIngress("c", "first", "first.example.com", "/", "svc", 80, grouped("-5")),
		testIngress("c", "alone", "alone.example.com", "/", "svc", 80, nil),
	}
	groups, err := GroupIngresses(ings)
	if err != nil {
		t.Fatal(err)
	}
	if len(groups) != 2 || groups[0].ID.Name != "c/alone" || groups[1].ID.Name != "shared" {
		t.Fatalf("groups = %+v, want c/alone and shared", groups)
	}
	var services []corev1.Service
	for _, ns := range []string{"a", "b", "c"} {
		services = append(services, testService(ns, "svc", 80, 8080, 30080))
	}
	st, _, err := BuildIngress(IngressInput{ClusterName: testCluster, Group: groups[1], Services: services})
	if err != nil {
		t.Fatal(err)
	}
	var hosts []string
	for i, r := range st.Rules {
		if r.Priority != int32(i+1) {
			t.Fatalf("rule %d has priority %d", i, r.Priority)
		}
		hosts = append(hosts, r.Conditions[0].Values[0])
	}
	want := []string{"first.example.com", "alpha.example.com", "zeta.example.com", "late.example.com"}
	if !reflect.DeepEqual(hosts, want) {
		t.Fatalf("rule hosts by priority = %v, want %v", hosts, want)
	}
	if len(st.TargetGroups) != 4 || len(st.Bindings) != 4 { // LBC: one per (Ingress, Service, port)
		t.Fatalf("want one target group and binding per Ingress backend, got %d, %d", len(st.TargetGroups), len(st.Bindings))
	}
}

// A rule's paths become listener rules in LBC's order, Exact first and then Prefix longest first:
// in the order written, the Prefix /a rule would win /a/b's requests.
func TestRulePathsLongestPrefixFirst(t *testing.T) {
	ing := testIngress("shop", "web", "", "/a", "svc", 80, nil)
	paths := &ing.Spec.Rules[0].HTTP.Paths
	exact := networkingv1.PathTypeExact
	for _, p := range []networkingv1.HTTPIngressPath{
		{Path: "/a/b", PathType: prefix()},
		{Path: "/health", PathType: &exact},
	} {
		p.Backend = (*paths)[0].Backend
		*paths = append(*paths, p)
	}
	st, _, err := BuildIngress(IngressInput{ClusterName: testCluster, Group: IngressGroup{ID: GroupID(&ing), Members: []networkingv1.Ingress{ing}},
		Services: []corev1.Service{testService("shop", "svc", 80, 8080, 30080)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range st.Rules {
		got = append(got, r.Conditions[len(r.Conditions)-1].Values[0])
	}
	if want := []string{"/health", "/a/b", "/a"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("rules' first path patterns by priority = %v, want %v", got, want)
	}
}

func TestGroupOrderMustBeAnInteger(t *testing.T) {
	ing := testIngress("a", "x", "", "/", "svc", 80, map[string]string{AnnotationGroupName: "g", AnnotationGroupOrder: "soon"})
	if _, err := GroupIngresses([]networkingv1.Ingress{ing}); err == nil {
		t.Fatal("want an error for a non-integer group.order")
	}
}

func TestNamesAreShortDeterministicAndDistinct(t *testing.T) {
	long := strings.Repeat("verylongnamespace", 4)
	ing := testIngress(long, strings.Repeat("ingress", 9), "", "/", strings.Repeat("service", 9), 80, map[string]string{AnnotationTargetType: "ip"})
	svc := testService(long, strings.Repeat("service", 9), 80, 8080, 0)
	build := func(i networkingv1.Ingress, s corev1.Service) Stack {
		st, _, err := BuildIngress(IngressInput{ClusterName: testCluster, Group: IngressGroup{ID: GroupID(&i), Members: []networkingv1.Ingress{i}}, Services: []corev1.Service{s}})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	st := build(ing, svc)
	names := []string{st.LoadBalancer.Name, st.TargetGroups[0].Name}
	for _, n := range names {
		if len(n) > MaxNameLength || !strings.HasPrefix(n, "k8s-verylong-") {
			t.Fatalf("name %q: want k8s-<8>-... of at most %d characters", n, MaxNameLength)
		}
	}
	if again := build(ing, svc); again.TargetGroups[0].Name != names[1] || again.LoadBalancer.Name != names[0] {
		t.Fatal("names differ between identical builds")
	}
	svc.Spec.Ports[0].TargetPort = intstr.FromInt32(9090)
	if changed := build(ing, svc); changed.TargetGroups[0].Name == names[1] {
		t.Fatal("a target group with another port kept the name; the replacement would collide")
	}
	if st.Bindings[0].Name != st.TargetGroups[0].Name {
		t.Fatal("binding not named after its target group")
	}
}

func TestServicePortByNameAndTargetGroupPort(t *testing.T) {
	f := newFixture()
	f.ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Port = networkingv1.ServiceBackendPort{Name: "http"}
	st, in := f.build(t)
	tg := st.TargetGroups[0]
	if tg.ID != "shop/web-frontend:http" || tg.Port != 8080 || tg.TargetType != "ip" {
		t.Fatalf("target group = %+v, want ID shop/web-frontend:http, port 8080 (target port), ip", tg)
	}
	if st.Bindings[0].ServicePort != intstr.FromString("http") {
		t.Fatalf("binding port = %v, want the name http", st.Bindings[0].ServicePort)
	}
	if len(in.Services) != 1 || len(in.Secrets) != 1 || len(in.Ingresses) != 1 {
		t.Fatalf("inputs read = %d ingresses, %d services, %d secrets; want 1 each", len(in.Ingresses), len(in.Services), len(in.Secrets))
	}
	delete(f.ing.Annotations, AnnotationTargetType) // instance targets use the node port
	if st, _ = f.build(t); st.TargetGroups[0].Port != 30080 {
		t.Fatalf("instance target group port = %d, want the node port 30080", st.TargetGroups[0].Port)
	}
}

func TestOIDCRuleAndHTTPSListener(t *testing.T) {
	f := newFixture()
	f.ing.Annotations[AnnotationHealthPath] = "/healthz"
	st, _ := f.build(t)
	if len(st.Listeners) != 1 || st.Listeners[0].Port != 443 || st.Listeners[0].Protocol != "HTTPS" || len(st.Listeners[0].Certificates) != 1 {
		t.Fatalf("listeners = %+v, want one HTTPS:443 with the certificate", st.Listeners)
	}
	r := st.Rules[0]
	if len(r.Actions) != 2 || r.Actions[0].Type != ActionAuthenticateOIDC || r.Actions[1].Type != ActionForward {
		t.Fatalf("rule actions = %+v, want authenticate-oidc then forward", r.Actions)
	}
	if o := r.Actions[0].AuthenticateOIDC; o.ClientID != "client-1" || o.Issuer != "https://idp.example.com" || o.UserInfoEndpoint != "https://idp.example.com/userinfo" {
		t.Fatalf("oidc = %+v", o)
	}
	if want := []string{"/*"}; !reflect.DeepEqual(r.Conditions[1].Values, want) {
		t.Fatalf("path patterns = %v, want %v", r.Conditions[1].Values, want)
	}
	if st.TargetGroups[0].HealthCheck.Path != "/healthz" {
		t.Fatal("healthcheck-path not applied")
	}
	if tags := st.TargetGroups[0].Tags; tags[TagCluster] != testCluster || tags["ingress.k8s.aws/stack"] != "shop/web" || tags["ingress.k8s.aws/resource"] != "shop/web-frontend:80" {
		t.Fatalf("target group tags = %v", tags)
	}
}

func TestBuildErrors(t *testing.T) {
	cases := map[string]func(f *fixture){
		"missing service":      func(f *fixture) { f.svc.Name = "other" },
		"missing service port": func(f *fixture) { f.svc.Spec.Ports[0].Port = 81 },
		"missing secret":       func(f *fixture) { f.secret.Name = "other" },
		"secret without keys":  func(f *fixture) { delete(f.secret.Data, "clientSecret") },
		"bad listen-ports":     func(f *fixture) { f.ing.Annotations[AnnotationListenPorts] = `[{"FTP":21}]` },
		"bad scheme":           func(f *fixture) { f.ing.Annotations[AnnotationScheme] = "public" },
		"https without cert":   func(f *fixture) { delete(f.ing.Annotations, AnnotationCertificateARN) },
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture()
			change(f)
			_, _, err := BuildIngress(IngressInput{ClusterName: testCluster, Group: IngressGroup{ID: GroupID(&f.ing), Members: []networkingv1.Ingress{f.ing}},
				Services: []corev1.Service{f.svc}, Secrets: []corev1.Secret{f.secret}})
			if err == nil {
				t.Fatalf("want an error for %s", name)
			}
		})
	}
}

func TestGroupMembersMustAgreeOnScheme(t *testing.T) {
	a := testIngress("a", "one", "", "/", "svc", 80, map[string]string{AnnotationGroupName: "g", AnnotationScheme: SchemeInternal})
	b := testIngress("a", "two", "", "/", "svc", 80, map[string]string{AnnotationGroupName: "g", AnnotationScheme: SchemeInternetFacing})
	_, _, err := BuildIngress(IngressInput{Group: IngressGroup{ID: GroupID(&a), Members: []networkingv1.Ingress{a, b}}, Services: []corev1.Service{testService("a", "svc", 80, 80, 30000)}})
	if err == nil {
		t.Fatal("want a conflict error")
	}
}

func TestClassDefaultsWinOverAnnotations(t *testing.T) {
	f := newFixture()
	f.ing.Annotations[AnnotationScheme] = SchemeInternal
	st, in, err := BuildIngress(IngressInput{ClusterName: testCluster, Group: IngressGroup{ID: GroupID(&f.ing), Members: []networkingv1.Ingress{f.ing}},
		Services: []corev1.Service{f.svc}, Secrets: []corev1.Secret{f.secret},
		ClassDefaults: &ClassDefaults{Scheme: SchemeInternetFacing, Tags: map[string]string{"team": "shop"}}})
	if err != nil {
		t.Fatal(err)
	}
	if st.LoadBalancer.Scheme != SchemeInternetFacing || st.LoadBalancer.Tags["team"] != "shop" || st.TargetGroups[0].Tags["team"] != "shop" {
		t.Fatalf("class defaults not applied: %+v", st.LoadBalancer)
	}
	if _, ok := st.LoadBalancer.Subnets.Tags["kubernetes.io/role/elb"]; !ok {
		t.Fatalf("internet-facing subnets discovered by %v, want kubernetes.io/role/elb", st.LoadBalancer.Subnets.Tags)
	}
	h1, _ := Checkpoint(st, in)
	in.ClassDefaults = &ClassDefaults{Scheme: SchemeInternetFacing}
	if h2, _ := Checkpoint(st, in); h1 == h2 {
		t.Fatal("checkpoint ignores the class defaults")
	}
}

func TestUseAnnotationActions(t *testing.T) {
	f := newFixture()
	f.ing.Annotations[AnnotationActionPrefix+"gone"] = `{"type":"fixed-response","fixedResponseConfig":{"statusCode":"503","contentType":"text/plain","messageBody":"gone"}}`
	paths := &f.ing.Spec.Rules[0].HTTP.Paths
	*paths = append(*paths, networkingv1.HTTPIngressPath{Path: "/old", PathType: prefix(), Backend: networkingv1.IngressBackend{
		Service: &networkingv1.IngressServiceBackend{Name: "gone", Port: networkingv1.ServiceBackendPort{Name: UseAnnotation}}}})
	st, _ := f.build(t)
	r := st.Rules[0] // the longer prefix, /old, comes before /
	if last := r.Actions[len(r.Actions)-1]; last.Type != ActionFixedResponse || last.FixedResponse.StatusCode != "503" {
		t.Fatalf("first rule = %+v, want the fixed response", r)
	}
	if !reflect.DeepEqual(r.Conditions[1].Values, []string{"/old", "/old/*"}) {
		t.Fatalf("prefix path patterns = %v", r.Conditions[1].Values)
	}
}

func TestExplicitGroupLoadBalancerName(t *testing.T) {
	ing := testIngress("a", "one", "", "/", "svc", 80, map[string]string{AnnotationGroupName: "Payments.Team"})
	st, _, err := BuildIngress(IngressInput{ClusterName: testCluster, Group: IngressGroup{ID: GroupID(&ing), Members: []networkingv1.Ingress{ing}},
		Services: []corev1.Service{testService("a", "svc", 80, 80, 30000)}})
	if err != nil {
		t.Fatal(err)
	}
	if n := st.LoadBalancer.Name; !strings.HasPrefix(n, "k8s-payments-") || strings.Contains(n, "--") || len(n) > MaxNameLength {
		t.Fatalf("group load balancer name = %q, want k8s-payments-<hash>", n)
	}
}

func TestBelongsToClass(t *testing.T) {
	alb, nginx := "alb", "nginx"
	byField := testIngress("a", "x", "", "/", "svc", 80, map[string]string{IngressClassAnnotation: nginx})
	byField.Spec.IngressClassName = &alb
	byAnnotation := testIngress("a", "y", "", "/", "svc", 80, map[string]string{IngressClassAnnotation: alb})
	if !BelongsToClass(&byField, alb) || BelongsToClass(&byField, nginx) || !BelongsToClass(&byAnnotation, alb) {
		t.Fatal("class membership: the field must win over the annotation, the annotation count when the field is unset")
	}
}

package workload_test

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/workload"
)

func ingressSpec() workload.Spec {
	s := planSpec()
	s.Namespaces = 3
	s.Ingresses = workload.IngressSpec{Count: 23, GroupSize: 5, TLSShare: 0.5, OIDCShare: 0.2, ServicesPerIngress: 2, LoadBalancerServices: 4}
	return s
}

func TestPlanIngressesDeterministic(t *testing.T) {
	a, b := workload.Plan(ingressSpec(), seeded(42)), workload.Plan(ingressSpec(), seeded(42))
	if !reflect.DeepEqual(a.IngressPlans, b.IngressPlans) || !reflect.DeepEqual(a.BackendServices, b.BackendServices) ||
		!reflect.DeepEqual(a.LoadBalancerServices, b.LoadBalancerServices) || !reflect.DeepEqual(a.IngressGroups, b.IngressGroups) {
		t.Fatal("same seed gave different Ingress plans")
	}
	if c := workload.Plan(ingressSpec(), seeded(43)); reflect.DeepEqual(a.IngressPlans, c.IngressPlans) {
		t.Fatal("different seeds gave the same Ingress plans")
	}
}

// TestPlanIngressesLeaveTheTGBFleetAlone: the Ingress side is planned after the TGB fleet, so adding
// it changes none of the TGBs, nodes or their pods.
func TestPlanIngressesLeaveTheTGBFleetAlone(t *testing.T) {
	with, without := ingressSpec(), ingressSpec()
	without.Ingresses = workload.IngressSpec{}
	a, b := workload.Plan(with, seeded(9)), workload.Plan(without, seeded(9))
	if !reflect.DeepEqual(a.TGBs, b.TGBs) || !reflect.DeepEqual(a.Nodes, b.Nodes) {
		t.Fatal("planning Ingresses changed the TGB fleet")
	}
	if len(b.IngressPlans)+len(b.BackendServices)+len(b.LoadBalancerServices)+len(b.IngressGroups) != 0 {
		t.Fatal("a fleet without ingresses planned some")
	}
}

func TestPlanIngressesShape(t *testing.T) {
	f := workload.Plan(ingressSpec(), seeded(1))
	if len(f.IngressPlans) != 23 || len(f.BackendServices) != 46 || len(f.LoadBalancerServices) != 4 {
		t.Fatalf("counts: %d ingresses, %d backends, %d LB services", len(f.IngressPlans), len(f.BackendServices), len(f.LoadBalancerServices))
	}
	var sizes []int
	for _, g := range f.IngressGroups {
		sizes = append(sizes, len(g.Members))
	}
	if !reflect.DeepEqual(sizes, []int{5, 5, 5, 5, 3}) {
		t.Fatalf("group sizes %v", sizes)
	}
	arn := regexp.MustCompile(`^arn:aws:acm:us-west-2:123456789012:certificate/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	var tls, oidc int
	ips := map[string]bool{}
	for _, tg := range f.TGBs {
		for _, p := range tg.Pods {
			ips[p.IP] = true
		}
	}
	order := map[string]int{}
	for _, ing := range f.IngressPlans {
		order[ing.Group]++
		if ing.Order != order[ing.Group] {
			t.Errorf("%s: group.order %d, want %d", ing.Name, ing.Order, order[ing.Group])
		}
		if len(ing.Paths) != 2 || len(ing.Backends) != 2 || !strings.HasSuffix(ing.Host, ".example.com") {
			t.Errorf("%s: paths %v backends %v host %q", ing.Name, ing.Paths, ing.Backends, ing.Host)
		}
		if ing.TLS != nil {
			tls++
			if !arn.MatchString(ing.TLS.CertificateARN) || len(ing.TLS.KeySeed) != 64 {
				t.Errorf("%s: TLS %+v", ing.Name, ing.TLS)
			}
		}
		if ing.OIDC != nil {
			oidc++
			if ing.TLS == nil || ing.OIDC.ClientSecret == "" || ing.OIDC.ClientID == "" {
				t.Errorf("%s: OIDC %+v without TLS or credentials", ing.Name, ing.OIDC)
			}
		}
	}
	if tls != 12 || oidc != 5 { // round(23 × 0.5), round(23 × 0.2)
		t.Fatalf("%d TLS, %d OIDC Ingresses; want 12, 5", tls, oidc)
	}
	for _, s := range append(f.BackendServices, f.LoadBalancerServices...) {
		if len(s.Pods) != 3 || s.Port != 80 || s.TargetPort != 8080 || s.LoadBalancer != (s.Ingress == "") {
			t.Errorf("service %+v", s)
		}
		for _, p := range s.Pods {
			if ips[p.IP] {
				t.Errorf("pod %s reuses IP %s", p.Name, p.IP)
			}
			ips[p.IP] = true
		}
	}
}

func TestIngressSpecValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   workload.IngressSpec
		want string
	}{
		{"oidc above tls", workload.IngressSpec{Count: 4, TLSShare: 0.2, OIDCShare: 0.5}, "ingresses.oidcShare"},
		{"share above 1", workload.IngressSpec{Count: 4, TLSShare: 1.5}, "ingresses.tlsShare"},
		{"negative count", workload.IngressSpec{Count: -1}, "ingresses.count"},
		{"huge group", workload.IngressSpec{Count: 4, GroupSize: 1000}, "ingresses.groupSize"},
		{"no services", workload.IngressSpec{Count: 4, ServicesPerIngress: -1}, "ingresses.servicesPerIngress"},
		{"bad account", workload.IngressSpec{Count: 4, AccountID: "12"}, "ingresses.accountID"},
		{"negative nlbs", workload.IngressSpec{LoadBalancerServices: -2}, "ingresses.loadBalancerServices"},
	} {
		spec := workload.Spec{TGBs: 1, Namespaces: 1, Ingresses: tc.in}.WithDefaults()
		if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, err, tc.want)
		}
	}
	ok := workload.Spec{TGBs: 1, Namespaces: 1, Ingresses: workload.IngressSpec{Count: 10, TLSShare: 0.3, OIDCShare: 0.3}}.WithDefaults()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	if ok.Ingresses.GroupSize != workload.DefaultIngressGroupSize || ok.Ingresses.ServicesPerIngress != workload.DefaultServicesPerIngress {
		t.Fatalf("defaults not applied: %+v", ok.Ingresses)
	}
}

// TestPlanIngressesAtScale plans the Ingress side of LBC issue #3540's size: groups, shares and
// unique names hold at 500 Ingresses.
func TestPlanIngressesAtScale(t *testing.T) {
	spec := workload.Spec{TGBs: 100, Namespaces: 4, Ingresses: workload.IngressSpec{Count: 500, GroupSize: 5, OIDCShare: 0.2,
		TLSShare: 0.5, ServicesPerIngress: 2, LoadBalancerServices: 50}}
	f := workload.Plan(spec, seeded(3))
	var tls, oidc int
	names := map[string]bool{}
	for _, ing := range f.IngressPlans {
		if ing.TLS != nil {
			tls++
		}
		if ing.OIDC != nil {
			oidc++
		}
		names[ing.Namespace+"/"+ing.Name] = true
	}
	if len(f.IngressGroups) != 100 || tls != 250 || oidc != 100 || len(names) != 500 ||
		len(f.BackendServices) != 1000 || len(f.LoadBalancerServices) != 50 {
		t.Fatalf("%d groups, %d TLS, %d OIDC, %d names, %d backends, %d NLB services",
			len(f.IngressGroups), tls, oidc, len(names), len(f.BackendServices), len(f.LoadBalancerServices))
	}
	for i, g := range f.IngressGroups {
		if len(g.Members) != 5 || g.Namespace != f.Namespaces[i%4] {
			t.Fatalf("group %d: %+v", i, g)
		}
	}
}

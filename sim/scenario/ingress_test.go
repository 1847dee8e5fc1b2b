package scenario

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/workload"
)

// withIngresses gives base's fleet an Ingress section (one line more, line 12) and a churn step of
// kind (replacing base's churn step).
func withIngresses(section, churn string) string {
	s := strings.Replace(base, "  networkingShare: 0.5", "  networkingShare: 0.5\n  ingresses: "+section, 1)
	return strings.Replace(s, "{after: 1s, action: churn, services: 2}", churn, 1)
}

func TestParseIngresses(t *testing.T) {
	in := withIngresses("{count: 12, tlsShare: 0.5, oidcShare: 0.25, loadBalancerServices: 3}",
		"{after: 1s, action: churn, kind: secretContent, services: 3}")
	s, err := Parse("t.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := workload.IngressSpec{Count: 12, GroupSize: DefaultIngressGroupSize, TLSShare: 0.5, OIDCShare: 0.25,
		ServicesPerIngress: DefaultServicesPerIngress, LoadBalancerServices: 3}
	if got := s.Fleet.WorkloadIngresses(); got != want {
		t.Fatalf("ingresses %+v, want %+v", got, want)
	}
	if k := s.Timeline[1].Kind; IngressChurnKinds[k] != workload.ChangeSecretContent {
		t.Fatalf("churn kind %q maps to %q", k, IngressChurnKinds[k])
	}
	spec := workload.Spec{TGBs: 1, Namespaces: 1, Ingresses: s.Fleet.WorkloadIngresses()}.WithDefaults()
	if err := spec.Validate(); err != nil {
		t.Fatalf("a valid section makes an invalid workload spec: %v", err)
	}

	plain, err := Parse("t.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	if plain.Fleet.Ingresses != nil || plain.Fleet.WorkloadIngresses() != (workload.IngressSpec{}) {
		t.Fatalf("a fleet without ingresses got %+v", plain.Fleet.Ingresses)
	}
}

func TestParseIngressErrors(t *testing.T) {
	const churn = "{after: 1s, action: churn, services: 2}"
	cases := []struct {
		name, section, churn, want string
	}{
		{"oidc above tls", "{count: 4, tlsShare: 0.2, oidcShare: 0.5}", churn, `t.yaml:12:40: fleet.ingresses.oidcShare: 0.5 exceeds tlsShare 0.2`},
		{"count missing", "{tlsShare: 0.2}", churn, `t.yaml:12:3: fleet.ingresses.count: required`},
		{"count negative", "{count: -3}", churn, `t.yaml:12:15: fleet.ingresses.count: must be between 0 and 100000, got -3`},
		{"empty", "{count: 0}", churn, `t.yaml:12:15: fleet.ingresses.count: 0 Ingresses and no loadBalancerServices`},
		{"group size zero", "{count: 4, groupSize: 0}", churn, `t.yaml:12:25: fleet.ingresses.groupSize: must be between 1 and 100, got 0`},
		{"services per ingress", "{count: 4, servicesPerIngress: 51}", churn, `fleet.ingresses.servicesPerIngress: must be between 1 and 50, got 51`},
		{"share", "{count: 4, tlsShare: 1.5}", churn, `t.yaml:12:25: fleet.ingresses.tlsShare: must be a fraction`},
		{"nlbs negative", "{count: 4, loadBalancerServices: -1}", churn, `fleet.ingresses.loadBalancerServices: must be between 0`},
		{"unknown field", "{count: 4, ingressClass: nginx}", churn, `t.yaml:12:25: fleet.ingresses.ingressClass: unknown field`},
		{"wrong type", "{count: many}", churn, `t.yaml:12:22: fleet.ingresses.count: want an integer`},
		{"churn without ingresses", "{count: 0, loadBalancerServices: 2}", "{after: 1s, action: churn, kind: ingressRule, services: 1}",
			`timeline[1].kind: ingressRule changes Ingresses: set fleet.ingresses.count above 0`},
		{"secret churn without oidc", "{count: 4, tlsShare: 1}", "{after: 1s, action: churn, kind: secretContent, services: 1}",
			`timeline[1].kind: secretContent needs OIDC Ingresses`},
		{"too many ingresses", "{count: 4}", "{after: 1s, action: churn, kind: backendPort, services: 5}",
			`timeline[1].services: must be between 1 and 4, got 5`},
		{"too many oidc ingresses", "{count: 4, tlsShare: 1, oidcShare: 0.5}", "{after: 1s, action: churn, kind: secretContent, services: 3}",
			`timeline[1].services: must be between 1 and 2, got 3`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(withIngresses(tc.section, tc.churn)))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			assertPlaced(t, err)
		})
	}
}

package scenario

import (
	"github.com/restartsim/restartsim/sim/workload"
)

// Churn kinds that change an input of an Ingress's load balancer model; services counts Ingresses.
const (
	// ChurnIngressRule adds a path to each chosen Ingress, routed to one of its backends.
	ChurnIngressRule = "ingressRule"
	// ChurnBackendPort moves a backend Service of each chosen Ingress to another port number and
	// points the Ingress at it.
	ChurnBackendPort = "backendPort"
	// ChurnBackendTargetPort moves a backend Service of each chosen Ingress to another target port.
	ChurnBackendTargetPort = "backendTargetPort"
	// ChurnSecretContent rotates the OIDC client secret of each chosen OIDC Ingress.
	ChurnSecretContent = "secretContent"
	// ChurnIngressAnnotation changes each chosen Ingress's healthcheck-path annotation.
	ChurnIngressAnnotation = "ingressAnnotation"
)

// IngressChurnKinds maps each Ingress churn kind to the kind of the workload.FleetChange it makes.
var IngressChurnKinds = map[string]string{
	ChurnIngressRule:       workload.ChangeIngressRule,
	ChurnBackendPort:       workload.ChangeBackendPort,
	ChurnBackendTargetPort: workload.ChangeBackendTargetPort,
	ChurnSecretContent:     workload.ChangeSecretContent,
	ChurnIngressAnnotation: workload.ChangeIngressAnnotation,
}

// maxIngresses keeps a typo from asking for the impossible, as maxTGBs does.
const maxIngresses = 100000

func (v *validator) validateIngresses(f *FleetSpec) {
	in := f.Ingresses
	if in == nil {
		return
	}
	const p = "fleet.ingresses"
	switch {
	case !v.given(p+".count") && in.Count == 0:
		v.addf(p+".count", "required: the number of Ingresses (0 for NLB Services only)")
	case in.Count < 0 || in.Count > maxIngresses:
		v.addf(p+".count", "must be between 0 and %d, got %d", maxIngresses, in.Count)
	case in.Count == 0 && in.LoadBalancerServices == 0:
		v.addf(p+".count", "0 Ingresses and no loadBalancerServices: drop fleet.ingresses instead")
	}
	v.count(p+".groupSize", in.GroupSize, 1, workload.MaxIngressGroupSize)
	v.count(p+".servicesPerIngress", in.ServicesPerIngress, 1, workload.MaxServicesPerIngress)
	if in.LoadBalancerServices < 0 || in.LoadBalancerServices > maxTGBs {
		v.addf(p+".loadBalancerServices", "must be between 0 and %d, got %d", maxTGBs, in.LoadBalancerServices)
	}
	v.share(p+".tlsShare", in.TLSShare)
	v.share(p+".oidcShare", in.OIDCShare)
	if in.OIDCShare > in.TLSShare {
		v.addf(p+".oidcShare", "%g exceeds tlsShare %g: OIDC Ingresses are drawn among the TLS ones (ALB authenticates on HTTPS listeners only)", in.OIDCShare, in.TLSShare)
	}
}

// isIngressChurn reports whether a churn kind changes Ingresses (its services counts Ingresses).
func isIngressChurn(kind string) bool {
	_, ok := IngressChurnKinds[kind]
	return ok
}

// validateIngressChurn checks an Ingress churn step against the Ingresses the fleet plans.
func (v *validator) validateIngressChurn(s *Scenario, st *Step, p string) {
	in := s.Fleet.WorkloadIngresses()
	switch {
	case in.Count == 0:
		v.addf(p+".kind", "%s changes Ingresses: set fleet.ingresses.count above 0", st.Kind)
		return
	case st.Kind == ChurnSecretContent && planned(in.Count, in.OIDCShare) == 0:
		v.addf(p+".kind", "%s needs OIDC Ingresses: fleet.ingresses.oidcShare %g of %d Ingresses plans none", st.Kind, in.OIDCShare, in.Count)
		return
	}
	limit := in.Count
	if st.Kind == ChurnSecretContent {
		limit = planned(in.Count, in.OIDCShare)
	}
	v.count(p+".services", st.Services, 1, limit)
}

// planned is how many of n items a share selects, rounded to nearest as the fleet's plan does.
func planned(n int, share float64) int {
	return min(n, int(float64(n)*share+0.5))
}

package workload

import (
	"math/rand/v2"
	"slices"

	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// IngressInfo is a snapshot of one Ingress of the fleet: what the harness needs to check the load
// balancer built for it.
type IngressInfo struct {
	Key types.NamespacedName
	// Group is its IngressGroup's name (group.name); Order its group.order.
	Group string
	Order int
	Host  string
	Paths []IngressPath
	// Backends are its backend Services.
	Backends []types.NamespacedName
	// Secrets are the Secrets it references: its TLS Secret, then its OIDC client Secret (each if any).
	Secrets []types.NamespacedName
	// CertificateARN is the HTTPS listener's certificate ("" without TLS).
	CertificateARN string
	// OIDCClientID and OIDCClientSecret are its OIDC client's current credentials ("" without OIDC).
	OIDCClientID, OIDCClientSecret string
	// HealthCheckPath is the target groups' health check path the Ingress asks for.
	HealthCheckPath string
}

// ServiceInfo is a snapshot of one Service of the Ingress side.
type ServiceInfo struct {
	Key types.NamespacedName
	// Ingress is the Ingress it backs (zero for a LoadBalancer Service).
	Ingress      types.NamespacedName
	LoadBalancer bool
	// Port is the Service port; TargetPort the pods' port, on which they are targets.
	Port, TargetPort int32
	// Targets are its ip targets (pod IP, TargetPort), in pod order.
	Targets []tgbexpect.Target
}

// IngressGroupInfo is a snapshot of one IngressGroup, whose Ingresses share one ALB.
type IngressGroupInfo struct {
	Name string
	// Members are its Ingresses in group.order order.
	Members []types.NamespacedName
}

// info snapshots ing; callers hold f.mu.
func (ing *IngressPlan) info() IngressInfo {
	in := IngressInfo{Key: ing.Key(), Group: ing.Group, Order: ing.Order, Host: ing.Host,
		Paths: slices.Clone(ing.Paths), HealthCheckPath: ing.HealthCheckPath}
	for _, b := range ing.Backends {
		in.Backends = append(in.Backends, types.NamespacedName{Namespace: ing.Namespace, Name: b})
	}
	if ing.TLS != nil {
		in.Secrets = append(in.Secrets, types.NamespacedName{Namespace: ing.Namespace, Name: ing.TLS.SecretName})
		in.CertificateARN = ing.TLS.CertificateARN
	}
	if ing.OIDC != nil {
		in.Secrets = append(in.Secrets, types.NamespacedName{Namespace: ing.Namespace, Name: ing.OIDC.SecretName})
		in.OIDCClientID, in.OIDCClientSecret = ing.OIDC.ClientID, ing.OIDC.ClientSecret
	}
	return in
}

// info snapshots s; callers hold f.mu.
func (s *ServicePlan) info() ServiceInfo {
	in := ServiceInfo{Key: s.Key(), LoadBalancer: s.LoadBalancer, Port: s.Port, TargetPort: s.TargetPort}
	if s.Ingress != "" {
		in.Ingress = types.NamespacedName{Namespace: s.Namespace, Name: s.Ingress}
	}
	for _, p := range s.Pods {
		in.Targets = append(in.Targets, tgbexpect.Target{ID: p.IP, Port: s.TargetPort})
	}
	return in
}

// Ingresses returns a snapshot of every Ingress, in plan order.
func (f *FleetPlan) Ingresses() []IngressInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]IngressInfo, len(f.IngressPlans))
	for i, ing := range f.IngressPlans {
		out[i] = ing.info()
	}
	return out
}

// Ingress returns a snapshot of the Ingress named key.
func (f *FleetPlan) Ingress(key types.NamespacedName) (IngressInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ing, ok := f.ingressByKey[key]
	if !ok {
		return IngressInfo{}, false
	}
	return ing.info(), true
}

// IngressGroupOf returns the IngressGroup of the Ingress named key.
func (f *FleetPlan) IngressGroupOf(key types.NamespacedName) (IngressGroupInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	ing, ok := f.ingressByKey[key]
	if !ok {
		return IngressGroupInfo{}, false
	}
	for _, g := range f.IngressGroups {
		if g.Name == ing.Group {
			gi := IngressGroupInfo{Name: g.Name}
			for _, m := range g.Members {
				gi.Members = append(gi.Members, types.NamespacedName{Namespace: g.Namespace, Name: m})
			}
			return gi, true
		}
	}
	return IngressGroupInfo{}, false
}

// IngressBackends returns snapshots of the backend Services of the Ingress named key.
func (f *FleetPlan) IngressBackends(key types.NamespacedName) []ServiceInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	ing, ok := f.ingressByKey[key]
	if !ok {
		return nil
	}
	out := make([]ServiceInfo, 0, len(ing.Backends))
	for _, b := range ing.Backends {
		out = append(out, f.serviceByKey[types.NamespacedName{Namespace: ing.Namespace, Name: b}].info())
	}
	return out
}

// IngressSecrets returns the Secrets the Ingress named key references (see IngressInfo.Secrets).
func (f *FleetPlan) IngressSecrets(key types.NamespacedName) []types.NamespacedName {
	in, _ := f.Ingress(key)
	return in.Secrets
}

// NLBServices returns snapshots of the Services of type LoadBalancer, in plan order.
func (f *FleetPlan) NLBServices() []ServiceInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]ServiceInfo, len(f.LoadBalancerServices))
	for i, s := range f.LoadBalancerServices {
		out[i] = s.info()
	}
	return out
}

// ChooseIngresses draws up to n distinct Ingresses that pass filter (nil: all), uniformly with rng, in
// draw order.
func (f *FleetPlan) ChooseIngresses(rng *rand.Rand, n int, filter func(IngressInfo) bool) []types.NamespacedName {
	f.mu.Lock()
	var cands []types.NamespacedName
	for _, ing := range f.IngressPlans {
		if filter == nil || filter(ing.info()) {
			cands = append(cands, ing.Key())
		}
	}
	f.mu.Unlock()
	return draw(rng, cands, n)
}

// ingressSideServices are the backend Services followed by the LoadBalancer Services.
func (f *FleetPlan) ingressSideServices() []*ServicePlan {
	return slices.Concat(f.BackendServices, f.LoadBalancerServices)
}

// IngressChangeApplies reports whether the Ingress-side change kind can be made on the Ingress in
// (secret-content needs an OIDC Ingress), for ChooseIngresses' filter.
func IngressChangeApplies(kind string, in IngressInfo) bool {
	switch kind {
	case ChangeSecretContent:
		return in.OIDCClientSecret != ""
	case ChangeIngressRule, ChangeBackendPort, ChangeBackendTargetPort, ChangeIngressAnnotation:
		return true
	}
	return false
}

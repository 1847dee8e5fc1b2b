package workload

import (
	"fmt"
	"math/rand/v2"
	"sync"

	"k8s.io/apimachinery/pkg/types"
)

// IngressGroupPlan is one IngressGroup: the Ingresses that share one ALB through
// alb.ingress.kubernetes.io/group.name, all in one namespace.
type IngressGroupPlan struct {
	// Name is the group.name annotation's value.
	Name      string
	Namespace string
	// Members are the Ingress names in group.order order.
	Members []string
}

// IngressPlan is one ALB Ingress of the fleet.
type IngressPlan struct {
	Namespace, Name string
	// Group names its IngressGroupPlan; Order is its group.order (1-based position in the group).
	Group string
	Order int
	// Host is the host of its one rule.
	Host string
	// Paths are the rule's paths, in order.
	Paths []IngressPath
	// Backends are its backend Services (in Namespace), in order; the first paths route to them.
	Backends []string
	// NextPath is the ordinal of the next path an ingress-rule change adds.
	NextPath int
	// HealthCheckPath is the alb.ingress.kubernetes.io/healthcheck-path annotation's value.
	HealthCheckPath string
	// TLS is set for an Ingress with an HTTPS listener.
	TLS *TLSPlan
	// OIDC is set for an Ingress that authenticates with OIDC (TLS ones only).
	OIDC *OIDCPlan

	lock sync.Mutex // serialises mutations of this Ingress and its backends
}

// Key is the Ingress's namespaced name.
func (i *IngressPlan) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: i.Namespace, Name: i.Name}
}

// IngressPath is one HTTP path of an Ingress rule, routed to a Service port by number.
type IngressPath struct {
	Path    string
	Service string
	Port    int32
}

// TLSPlan is an Ingress's certificate: a kubernetes.io/tls Secret with a self-signed certificate
// generated from KeySeed, and the ACM certificate ARN the ALB listener uses.
type TLSPlan struct {
	SecretName     string
	CertificateARN string
	// KeySeed is the hex-encoded ed25519 seed of the certificate's key; with SerialNumber it makes
	// the certificate the same on every run of the seed.
	KeySeed      string
	SerialNumber int64
}

// OIDCPlan is an Ingress's OIDC identity provider and the client Secret (keys clientID and
// clientSecret) that auth-idp-oidc names.
type OIDCPlan struct {
	SecretName   string
	Issuer       string
	ClientID     string
	ClientSecret string
}

// ServicePlan is a Service of the Ingress side with its pods: an Ingress backend (Ingress set) or a
// Service of type LoadBalancer (LoadBalancer set).
type ServicePlan struct {
	Namespace, Name string
	// Ingress names the Ingress whose backend it is ("" for a LoadBalancer Service).
	Ingress      string
	LoadBalancer bool
	// Port is the Service port (by number, as the Ingress references it); TargetPort the pods' port
	// it forwards to, which the EndpointSlice carries.
	Port, TargetPort int32
	// Pods are the current pods, oldest first; NextPod is the next pod name's ordinal.
	Pods    []PodPlan
	NextPod int
}

// Key is the Service's namespaced name.
func (s *ServicePlan) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: s.Namespace, Name: s.Name}
}

// planIngresses plans Spec.Ingresses, drawing from rng. With none asked for it draws nothing.
func (f *FleetPlan) planIngresses(rng *rand.Rand) {
	is := f.Spec.Ingresses
	f.ingressByKey = map[types.NamespacedName]*IngressPlan{}
	f.serviceByKey = map[types.NamespacedName]*ServicePlan{}
	if !is.HasLoadBalancers() {
		return
	}
	nTLS := share(is.Count, is.TLSShare)
	tls := chosen(rng, is.Count, nTLS)
	oidc := chosen(rng, nTLS, min(nTLS, share(is.Count, is.OIDCShare)))
	tlsIndex := 0
	var g *IngressGroupPlan
	for i := range is.Count {
		if i%is.GroupSize == 0 {
			n := len(f.IngressGroups)
			g = &IngressGroupPlan{Name: fmt.Sprintf("grp-%04d-%s", n, randName(rng, 5)), Namespace: f.Namespaces[n%len(f.Namespaces)]}
			f.IngressGroups = append(f.IngressGroups, g)
		}
		ing := f.planIngress(rng, g, i)
		if tls[i] {
			ing.TLS = f.planTLS(rng, ing)
			if oidc[tlsIndex] {
				ing.OIDC = planOIDC(rng, ing)
			}
			tlsIndex++
		}
	}
	for i := range is.LoadBalancerServices {
		name := fmt.Sprintf("nlb-%05d-%s", i, randName(rng, 5))
		s := f.planService(rng, f.Namespaces[i%len(f.Namespaces)], name, "")
		s.LoadBalancer = true
		f.LoadBalancerServices = append(f.LoadBalancerServices, s)
	}
}

// planIngress plans the i-th Ingress as the next member of g, with its backend Services and pods.
func (f *FleetPlan) planIngress(rng *rand.Rand, g *IngressGroupPlan, i int) *IngressPlan {
	name := fmt.Sprintf("ing-%05d-%s", i, randName(rng, 5))
	ing := &IngressPlan{
		Namespace: g.Namespace, Name: name, Group: g.Name, Order: len(g.Members) + 1,
		Host:            name + "." + g.Name + ".example.com",
		HealthCheckPath: "/healthz",
	}
	g.Members = append(g.Members, name)
	for j := range f.Spec.Ingresses.ServicesPerIngress {
		s := f.planService(rng, g.Namespace, fmt.Sprintf("%s-b%d", name, j), name)
		f.BackendServices = append(f.BackendServices, s)
		ing.Backends = append(ing.Backends, s.Name)
		ing.Paths = append(ing.Paths, IngressPath{Path: fmt.Sprintf("/b%d", j), Service: s.Name, Port: s.Port})
	}
	f.IngressPlans = append(f.IngressPlans, ing)
	f.ingressByKey[ing.Key()] = ing
	return ing
}

// planService plans a Service of the Ingress side with Spec.PodsPerService pods. Validate made sure
// the pod range holds them.
func (f *FleetPlan) planService(rng *rand.Rand, namespace, name, ingress string) *ServicePlan {
	s := &ServicePlan{Namespace: namespace, Name: name, Ingress: ingress, Port: f.Spec.ServicePort, TargetPort: f.Spec.Port}
	for range f.Spec.PodsPerService {
		p, _ := f.planServicePod(rng, name, &s.NextPod)
		s.Pods = append(s.Pods, p)
	}
	f.serviceByKey[s.Key()] = s
	return s
}

func (f *FleetPlan) planTLS(rng *rand.Rand, ing *IngressPlan) *TLSPlan {
	id := randHex(rng, 32)
	return &TLSPlan{
		SecretName: ing.Name + "-tls",
		CertificateARN: fmt.Sprintf("arn:aws:acm:%s:%s:certificate/%s-%s-%s-%s-%s", region(f.Spec.Zones[0]),
			f.Spec.Ingresses.AccountID, id[:8], id[8:12], id[12:16], id[16:20], id[20:]),
		KeySeed:      randHex(rng, 64),
		SerialNumber: rng.Int64N(1<<62) + 1,
	}
}

func planOIDC(rng *rand.Rand, ing *IngressPlan) *OIDCPlan {
	return &OIDCPlan{
		SecretName:   ing.Name + "-oidc",
		Issuer:       "https://idp." + ing.Group + ".example.com",
		ClientID:     ing.Name + "-" + randName(rng, 8),
		ClientSecret: randHex(rng, 40),
	}
}

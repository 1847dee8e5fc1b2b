package workload

import (
	"errors"
	"fmt"
)

// IngressSpec describes the Ingress side of the fleet: ALB Ingresses in groups that share one load
// balancer, their backend Services, TLS and OIDC Secrets, and NLB Services of type LoadBalancer. None of
// it gets a TargetGroupBinding or target group from the fleet: the controllers under test build them
// from the Ingresses and Services. The zero value (Count 0, LoadBalancerServices 0) plans nothing.
type IngressSpec struct {
	// Count is the number of Ingresses. Default 0: none.
	Count int
	// GroupSize is the number of Ingresses that share one ALB (alb.ingress.kubernetes.io/group.name);
	// the last group takes the remainder. Default 5.
	GroupSize int
	// TLSShare is the fraction of Ingresses with an HTTPS listener: a kubernetes.io/tls Secret in
	// spec.tls and an ACM certificate in alb.ingress.kubernetes.io/certificate-arn. Default 0.
	TLSShare float64
	// OIDCShare is the fraction of Ingresses that authenticate with OIDC (auth-type oidc, a client
	// Secret named in auth-idp-oidc). ALB authenticates only on HTTPS listeners, so these are drawn
	// among the TLS Ingresses: at most TLSShare. Default 0.
	OIDCShare float64
	// ServicesPerIngress is the number of backend Services of each Ingress, one path each. Default 2.
	ServicesPerIngress int
	// LoadBalancerServices is the number of Services of type LoadBalancer (NLB, ip targets). Default 0.
	LoadBalancerServices int
	// AccountID is the AWS account in the certificates' ACM ARNs. Default "123456789012" (fakeaws's).
	AccountID string
}

// HasLoadBalancers reports whether the spec asks for any Ingress or Service of type LoadBalancer.
func (s IngressSpec) HasLoadBalancers() bool { return s.Count > 0 || s.LoadBalancerServices > 0 }

// Defaults of IngressSpec.
const (
	DefaultIngressGroupSize   = 5
	DefaultServicesPerIngress = 2
	DefaultAccountID          = "123456789012"
	// MaxIngressGroupSize bounds GroupSize: an ALB listener holds at most 100 rules by default.
	MaxIngressGroupSize = 100
	// MaxServicesPerIngress bounds ServicesPerIngress, for the same listener rule quota.
	MaxServicesPerIngress = 50
	ingressShareTolerance = 1e-9
)

// withDefaults returns s with every zero field set to its documented default.
func (s IngressSpec) withDefaults() IngressSpec {
	if s.GroupSize == 0 {
		s.GroupSize = DefaultIngressGroupSize
	}
	if s.ServicesPerIngress == 0 {
		s.ServicesPerIngress = DefaultServicesPerIngress
	}
	if s.AccountID == "" {
		s.AccountID = DefaultAccountID
	}
	return s
}

// validate reports every problem of a defaulted IngressSpec, each naming its field under ingresses.
func (s IngressSpec) validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("ingresses.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if s.Count < 0 {
		bad("count", "must be ≥ 0, got %d", s.Count)
	}
	if s.GroupSize < 1 || s.GroupSize > MaxIngressGroupSize {
		bad("groupSize", "must be in 1-%d, got %d", MaxIngressGroupSize, s.GroupSize)
	}
	if s.ServicesPerIngress < 1 || s.ServicesPerIngress > MaxServicesPerIngress {
		bad("servicesPerIngress", "must be in 1-%d, got %d", MaxServicesPerIngress, s.ServicesPerIngress)
	}
	if s.LoadBalancerServices < 0 {
		bad("loadBalancerServices", "must be ≥ 0, got %d", s.LoadBalancerServices)
	}
	for name, v := range map[string]float64{"tlsShare": s.TLSShare, "oidcShare": s.OIDCShare} {
		if v < 0 || v > 1 {
			bad(name, "must be in [0, 1], got %v", v)
		}
	}
	if s.OIDCShare > s.TLSShare+ingressShareTolerance {
		bad("oidcShare", "%v exceeds tlsShare %v: OIDC Ingresses are drawn among the TLS ones (ALB authenticates on HTTPS only)", s.OIDCShare, s.TLSShare)
	}
	if !accountIDRE.MatchString(s.AccountID) {
		bad("accountID", "must be 12 digits, got %q", s.AccountID)
	}
	return errors.Join(errs...)
}

// pods is the number of pods the Ingress side plans.
func (s IngressSpec) pods(podsPerService int) int {
	return (s.Count*s.ServicesPerIngress + s.LoadBalancerServices) * podsPerService
}

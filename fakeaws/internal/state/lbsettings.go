package state

import (
	"slices"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// SetSubnets moves a load balancer to other subnets of its VPC, checked like CreateLoadBalancer's, and sets
// whether it takes an IPv6 prefix for source NAT.
func (s *Store) SetSubnets(arn string, subnets []SubnetMapping, ipv6SourceNATPrefix bool) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, err := s.lb(arn)
	if err != nil {
		return LoadBalancer{}, err
	}
	c := cloneLB(lb)
	c.Subnets = slices.Clone(subnets)
	if err := s.placeLoadBalancer(&c); err != nil {
		return LoadBalancer{}, err
	}
	lb.Subnets, lb.IPv6SourceNATPrefix = c.Subnets, ipv6SourceNATPrefix
	return cloneLB(lb), nil
}

// SetSecurityGroups replaces a load balancer's security groups. A network load balancer created without
// groups cannot get any, and an application load balancer needs at least one, as in AWS.
func (s *Store) SetSecurityGroups(arn string, groups []string) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, err := s.lb(arn)
	if err != nil {
		return LoadBalancer{}, err
	}
	switch {
	case lb.Type == LBTypeNetwork && len(lb.SecurityGroupIDs) == 0 && len(groups) > 0:
		return LoadBalancer{}, query.Errorf("InvalidConfigurationRequest", "You cannot set security groups on a Network Load Balancer which was created without any security groups")
	case lb.Type == LBTypeApplication && len(groups) == 0:
		return LoadBalancer{}, query.Errorf("ValidationError", "At least one security group must be specified for an application load balancer")
	}
	for _, id := range groups {
		if g, ok := s.sgs[id]; !ok || g.VPCID != lb.VPCID {
			return LoadBalancer{}, query.Errorf("InvalidSecurityGroup", "Security group '%s' does not exist in VPC '%s'", id, lb.VPCID)
		}
	}
	for _, g := range lb.SecurityGroupIDs {
		if s.sgUsers[g]--; s.sgUsers[g] <= 0 {
			delete(s.sgUsers, g)
		}
	}
	lb.SecurityGroupIDs = slices.Clone(groups)
	for _, g := range lb.SecurityGroupIDs {
		s.sgUsers[g]++
	}
	return cloneLB(lb), nil
}

// SetIPAddressType changes a load balancer's IP address type (validated for syntax by the caller).
func (s *Store) SetIPAddressType(arn, typ string) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, err := s.lb(arn)
	if err != nil {
		return LoadBalancer{}, err
	}
	if typ == "dualstack-without-public-ipv4" && (lb.Type != LBTypeApplication || lb.Scheme != SchemeInternetFacing) {
		return LoadBalancer{}, query.Errorf("ValidationError", "IP address type 'dualstack-without-public-ipv4' is only supported by internet-facing application load balancers")
	}
	lb.IPAddressType = typ
	return cloneLB(lb), nil
}

// AddListenerCertificates adds certificates to a secure listener's certificate list (beside its default one);
// one already in the list is not added twice.
func (s *Store) AddListenerCertificates(arn string, certs []string) ([]Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.secureListener(arn)
	if err != nil {
		return nil, err
	}
	// The default certificate may be in the list too (as LBC puts it, so that SNI offers it): an
	// entry of its own, not a second default.
	for _, c := range certs {
		if !slices.ContainsFunc(l.Certificates, func(h Certificate) bool { return h.ARN == c && !h.IsDefault }) {
			l.Certificates = append(l.Certificates, Certificate{ARN: c})
		}
	}
	if len(l.Certificates) > 26 { // the default and 25 more: ELBv2's quota per listener
		l.Certificates = l.Certificates[:len(l.Certificates)-len(certs)]
		return nil, query.Errorf("TooManyCertificates", "You've reached the limit on the number of certificates per load balancer")
	}
	return slices.Clone(l.Certificates), nil
}

// RemoveListenerCertificates removes non-default certificates (the default one's list entry too);
// the default itself cannot be removed this way.
func (s *Store) RemoveListenerCertificates(arn string, certs []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.secureListener(arn)
	if err != nil {
		return err
	}
	listed := func(c string) bool {
		return slices.ContainsFunc(l.Certificates, func(h Certificate) bool { return h.ARN == c && !h.IsDefault })
	}
	for _, c := range certs {
		if len(l.Certificates) > 0 && l.Certificates[0].ARN == c && !listed(c) {
			return query.Errorf("OperationNotPermitted", "The default certificate '%s' cannot be removed; use ModifyListener to replace it", c)
		}
	}
	l.Certificates = slices.DeleteFunc(l.Certificates, func(h Certificate) bool { return !h.IsDefault && slices.Contains(certs, h.ARN) })
	return nil
}

// ListenerCertificates returns a listener's certificates, the default one first.
func (s *Store) ListenerCertificates(arn string) ([]Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.listener(arn)
	if err != nil {
		return nil, err
	}
	return slices.Clone(l.Certificates), nil
}

func (s *Store) secureListener(arn string) (*Listener, error) {
	l, err := s.listener(arn)
	if err != nil {
		return nil, err
	}
	if l.Protocol != "HTTPS" && l.Protocol != "TLS" {
		return nil, query.Errorf("InvalidConfigurationRequest", "Certificates are only supported by HTTPS and TLS listeners")
	}
	return l, nil
}

package state

import (
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// AttrDeletionProtection is the load balancer attribute that makes DeleteLoadBalancer refuse.
const AttrDeletionProtection = "deletion_protection.enabled"

var lbName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)

// hostedZones are the Route 53 zones of ELB DNS names per region: application, then network load balancers.
// A region not listed gets us-west-2's.
var hostedZones = map[string][2]string{
	"us-east-1": {"Z35SXDOTRQ7X7K", "Z26RNL4JYFTOTI"},
	"us-east-2": {"Z3AADJGX6KTTL2", "ZLMOA37VPKANP"},
	"us-west-1": {"Z368ELLRRE2KJ0", "Z24FKFUX50B4VW"},
	"us-west-2": {"Z1H1FL5HABSF5", "Z18D5FSROUN65G"},
	"eu-west-1": {"Z32O12XQLNTSW2", "Z2IFOLAFXWLO4F"},
}

// CreateLoadBalancer creates a load balancer from lb's Name, Type, Scheme, IPAddressType, Subnets (IDs and
// optional addresses), SecurityGroupIDs and Tags. Creating one with the name and settings of an existing load
// balancer returns that one (AWS is idempotent here); the same name with other settings is
// DuplicateLoadBalancerName.
func (s *Store) CreateLoadBalancer(lb LoadBalancer, now time.Time) (LoadBalancer, error) {
	if !lbName.MatchString(lb.Name) || strings.HasPrefix(strings.ToLower(lb.Name), "internal-") {
		return LoadBalancer{}, query.Errorf("ValidationError", "Load balancer name '%s' must be at most 32 alphanumeric characters or hyphens, must not begin or end with a hyphen, and must not begin with 'internal-'", lb.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.placeLoadBalancer(&lb); err != nil {
		return LoadBalancer{}, err
	}
	if arn, ok := s.lbByName[lb.Name]; ok {
		o := s.lbs[arn]
		if o.Type == lb.Type && o.Scheme == lb.Scheme && slices.Equal(subnetIDs(o.Subnets), subnetIDs(lb.Subnets)) {
			return cloneLB(o), nil
		}
		return LoadBalancer{}, query.Errorf("DuplicateLoadBalancerName", "A load balancer with the same name '%s' exists, but with different settings", lb.Name)
	}
	if err := s.lbQuota(lb.Type); err != nil {
		return LoadBalancer{}, err
	}
	if err := s.tagLimit(len(lb.Tags)); err != nil {
		return LoadBalancer{}, err
	}
	kind, zone := "app", 0
	if lb.Type == LBTypeNetwork {
		kind, zone = "net", 1
	}
	id := s.newID("", 16)
	lb.ARN = s.arnPrefix() + "loadbalancer/" + kind + "/" + lb.Name + "/" + id
	lb.DNSName = s.dnsName(lb)
	zones, ok := hostedZones[s.cfg.Region]
	if !ok {
		zones = hostedZones["us-west-2"]
	}
	lb.CanonicalHostedZoneID = zones[zone]
	lb.CreatedAt, lb.ActiveAt = now, now.Add(s.cfg.LoadBalancerActiveAfter)
	lb.Attributes = nil
	lb.Tags = cloneTags(lb.Tags)
	c := cloneLB(&lb)
	s.lbs[lb.ARN] = &c
	s.lbByName[lb.Name] = lb.ARN
	s.lbOrder.add(tgKey{lb.Name, lb.ARN})
	for _, g := range lb.SecurityGroupIDs {
		s.sgUsers[g]++
	}
	return cloneLB(&c), nil
}

func (s *Store) arnPrefix() string {
	return "arn:aws:elasticloadbalancing:" + s.cfg.Region + ":" + s.cfg.AccountID + ":"
}

func (s *Store) dnsName(lb LoadBalancer) string {
	if lb.Type == LBTypeNetwork {
		return lb.Name + "-" + s.newID("", 16) + ".elb." + s.cfg.Region + ".amazonaws.com"
	}
	digits := make([]byte, 10)
	for i := range digits {
		digits[i] = byte('0' + s.rng.IntN(10))
	}
	host := lb.Name + "-" + string(digits) + "." + s.cfg.Region + ".elb.amazonaws.com"
	if lb.Scheme == SchemeInternal {
		host = "internal-" + host
	}
	return host
}

func subnetIDs(ms []SubnetMapping) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.SubnetID)
	}
	slices.Sort(out)
	return out
}

// placeLoadBalancer resolves lb's subnets (zones, VPC) and security groups the way ELBv2 checks them.
func (s *Store) placeLoadBalancer(lb *LoadBalancer) error {
	zones := map[string]bool{}
	for i, m := range lb.Subnets {
		sn, ok := s.subnets[m.SubnetID]
		if !ok {
			return query.Errorf("SubnetNotFound", "The subnet ID '%s' is not valid", m.SubnetID)
		}
		if lb.VPCID == "" {
			lb.VPCID = sn.VPCID
		} else if sn.VPCID != lb.VPCID {
			return query.Errorf("InvalidConfigurationRequest", "All subnets must belong to the same VPC: '%s' is in '%s', not '%s'", sn.ID, sn.VPCID, lb.VPCID)
		}
		if zones[sn.AvailabilityZone] {
			return query.Errorf("InvalidConfigurationRequest", "A load balancer cannot be attached to multiple subnets in the same Availability Zone")
		}
		zones[sn.AvailabilityZone] = true
		lb.Subnets[i].AvailabilityZone = sn.AvailabilityZone
	}
	if lb.Type == LBTypeApplication && len(zones) < 2 {
		return query.Errorf("ValidationError", "At least two subnets in two different Availability Zones must be specified")
	}
	if len(zones) == 0 {
		return query.Errorf("ValidationError", "At least one subnet must be specified")
	}
	if lb.Type == LBTypeApplication && len(lb.SecurityGroupIDs) == 0 {
		for _, g := range s.sgs { // like AWS, an application load balancer without groups gets the VPC's default
			if g.VPCID == lb.VPCID && g.Name == "default" {
				lb.SecurityGroupIDs = []string{g.ID}
			}
		}
	}
	for _, id := range lb.SecurityGroupIDs {
		if g, ok := s.sgs[id]; !ok || g.VPCID != lb.VPCID {
			return query.Errorf("InvalidSecurityGroup", "Security group '%s' does not exist in VPC '%s'", id, lb.VPCID)
		}
	}
	lb.SecurityGroupIDs = slices.Clone(lb.SecurityGroupIDs)
	return nil
}

func (s *Store) lbQuota(typ string) error {
	if s.cfg.MaxLoadBalancers <= 0 {
		return nil
	}
	n := 0
	for _, o := range s.lbs {
		if o.Type == typ {
			n++
		}
	}
	if n >= s.cfg.MaxLoadBalancers {
		return query.Errorf("TooManyLoadBalancers", "The maximum number of load balancers has been reached")
	}
	return nil
}

func (s *Store) lb(arn string) (*LoadBalancer, error) {
	if lb, ok := s.lbs[arn]; ok {
		return lb, nil
	}
	return nil, query.Errorf("LoadBalancerNotFound", "Load balancers '[%s]' not found", arn)
}

// DeleteLoadBalancer deletes a load balancer with its listeners and rules. Deleting an unknown load balancer
// succeeds, as in AWS; one with deletion protection is OperationNotPermitted.
func (s *Store) DeleteLoadBalancer(arn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, ok := s.lbs[arn]
	if !ok {
		return nil
	}
	if lb.Attributes[AttrDeletionProtection] == "true" {
		return query.Errorf("OperationNotPermitted", "Load balancer '%s' cannot be deleted because deletion protection is enabled", arn)
	}
	for _, l := range slices.Clone(s.listenersByLB[arn]) {
		s.deleteListener(l)
	}
	for _, g := range lb.SecurityGroupIDs {
		if s.sgUsers[g]--; s.sgUsers[g] <= 0 {
			delete(s.sgUsers, g)
		}
	}
	delete(s.lbs, arn)
	delete(s.lbByName, lb.Name)
	delete(s.listenersByLB, arn)
	s.lbOrder.remove()
	return nil
}

// LoadBalancerPage returns the load balancers [start, start+size) in name order and how many there are.
func (s *Store) LoadBalancerPage(start, size int) ([]LoadBalancer, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := s.lbOrder.keys(func(k tgKey) bool { return s.lbs[k.arn] != nil })
	start = min(max(start, 0), len(keys))
	end := len(keys)
	if size >= 0 {
		end = min(start+size, end)
	}
	out := make([]LoadBalancer, 0, end-start)
	for _, k := range keys[start:end] {
		out = append(out, cloneLB(s.lbs[k.arn]))
	}
	return out, len(keys)
}

// LoadBalancers returns every load balancer in name order.
func (s *Store) LoadBalancers() []LoadBalancer {
	all, _ := s.LoadBalancerPage(0, -1)
	return all
}

// LoadBalancersByARN returns the load balancers of arns in order and -1, or nil and the first missing index.
func (s *Store) LoadBalancersByARN(arns []string) ([]LoadBalancer, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lookup(s.lbs, arns, cloneLB)
}

// LoadBalancersByName returns the load balancers of names in order and -1, or nil and the first missing index.
func (s *Store) LoadBalancersByName(names []string) ([]LoadBalancer, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]LoadBalancer, 0, len(names))
	for i, n := range names {
		arn, ok := s.lbByName[n]
		if !ok {
			return nil, i
		}
		out = append(out, cloneLB(s.lbs[arn]))
	}
	return out, -1
}

// LoadBalancer returns one load balancer.
func (s *Store) LoadBalancer(arn string) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, err := s.lb(arn)
	if err != nil {
		return LoadBalancer{}, err
	}
	return cloneLB(lb), nil
}

// SetLoadBalancerAttributes records attribute values (validated by the caller) and returns the load balancer.
func (s *Store) SetLoadBalancerAttributes(arn string, attrs map[string]string) (LoadBalancer, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lb, err := s.lb(arn)
	if err != nil {
		return LoadBalancer{}, err
	}
	lb.Attributes = setAttributes(lb.Attributes, attrs)
	return cloneLB(lb), nil
}

func setAttributes(have, set map[string]string) map[string]string {
	if have == nil {
		have = make(map[string]string, len(set))
	}
	for k, v := range set {
		have[k] = v
	}
	return have
}

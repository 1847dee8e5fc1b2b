package state

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// Subnet tags by which the AWS Load Balancer Controller discovers subnets for internet-facing and internal
// load balancers.
const (
	TagRoleELB         = "kubernetes.io/role/elb"
	TagRoleInternalELB = "kubernetes.io/role/internal-elb"
)

// seedDefaultSubnets gives the default VPC one subnet per zone a, b and c of the region, like a default VPC,
// tagged for both load balancer schemes so that a deployer finds them the way the controller does.
func (s *Store) seedDefaultSubnets(vpcID string) {
	for i, zone := range []string{"a", "b", "c"} {
		sn := &Subnet{
			ID: s.newID("subnet-", 17), VPCID: vpcID, CIDR: "10.0." + strconv.Itoa(i*32) + ".0/19",
			AvailabilityZone: s.cfg.Region + zone, AvailabilityZoneID: zoneID(s.cfg.Region, i+1),
			DefaultForAZ: true, MapPublicIPOnLaunch: true,
			Tags: []Tag{{Key: TagRoleELB, Value: "1"}, {Key: TagRoleInternalELB, Value: "1"}},
		}
		s.subnets[sn.ID] = sn
	}
}

// zoneID is an AZ ID like usw2-az1: the region with its middle word shortened to a letter, and the zone's number.
func zoneID(region string, n int) string {
	parts := strings.Split(region, "-")
	if len(parts) == 3 && parts[1] != "" {
		parts[1] = parts[1][:1]
	}
	return strings.Join(parts, "") + "-az" + strconv.Itoa(n)
}

// SeedSubnet adds (or replaces) a subnet; the VPC must exist and the CIDR must be a prefix inside one of its
// blocks.
func (s *Store) SeedSubnet(sn Subnet) (Subnet, error) {
	p, err := netip.ParsePrefix(sn.CIDR)
	if err != nil {
		return Subnet{}, query.Errorf("InvalidParameterValue", "invalid CIDR %q", sn.CIDR)
	}
	if sn.AvailabilityZone == "" {
		return Subnet{}, query.Errorf("MissingParameter", "a subnet needs an availability zone")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vpc, err := s.vpcOrDefault(sn.VPCID)
	if err != nil {
		return Subnet{}, err
	}
	inside := false
	for _, c := range s.vpcs[vpc].CIDRs {
		if vp, err := netip.ParsePrefix(c); err == nil && vp.Bits() <= p.Bits() && vp.Contains(p.Addr()) {
			inside = true
		}
	}
	if !inside {
		return Subnet{}, query.Errorf("InvalidSubnet.Range", "The CIDR '%s' is invalid.", sn.CIDR)
	}
	sn.VPCID = vpc
	if sn.ID == "" {
		sn.ID = s.newID("subnet-", 17)
	}
	sn.Tags = cloneTags(sn.Tags)
	s.subnets[sn.ID] = &sn
	return cloneSubnet(&sn), nil
}

// Subnets returns all subnets sorted by ID.
func (s *Store) Subnets() []Subnet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return inOrder(s.subnets, sortedKeys(s.subnets), cloneSubnet)
}

// SubnetsByID returns the subnets of ids in order, or the first ID that does not exist.
func (s *Store) SubnetsByID(ids []string) ([]Subnet, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out, missing := lookup(s.subnets, ids, cloneSubnet)
	if missing >= 0 {
		return nil, ids[missing]
	}
	return out, ""
}

// availableIPs is what EC2 reports free in a subnet: its size less the five addresses AWS reserves.
func availableIPs(cidr string) int {
	p, err := netip.ParsePrefix(cidr)
	if err != nil || p.Addr().BitLen()-p.Bits() > 30 {
		return 0
	}
	return 1<<(p.Addr().BitLen()-p.Bits()) - 5
}

// AvailableIPs is availableIPs for the EC2 handler.
func (sn Subnet) AvailableIPs() int { return availableIPs(sn.CIDR) }

// Zone is an availability zone of the region.
type Zone struct {
	Name, ID string
}

// Zones are the region's availability zones, sorted by name: a, b and c, where the default VPC's
// subnets are, and every other zone a subnet was seeded in.
func (s *Store) Zones() []Zone {
	s.mu.Lock()
	defer s.mu.Unlock()
	byName := map[string]string{}
	for i, z := range []string{"a", "b", "c"} {
		byName[s.cfg.Region+z] = zoneID(s.cfg.Region, i+1)
	}
	for _, sn := range s.subnets {
		if _, ok := byName[sn.AvailabilityZone]; !ok || sn.AvailabilityZoneID != "" {
			byName[sn.AvailabilityZone] = sn.AvailabilityZoneID
		}
	}
	out := make([]Zone, 0, len(byName))
	for _, name := range sortedKeys(byName) {
		id := byName[name]
		if letter := strings.TrimPrefix(name, s.cfg.Region); id == "" && len(letter) == 1 && letter[0] >= 'a' && letter[0] <= 'z' {
			id = zoneID(s.cfg.Region, int(letter[0]-'a')+1)
		}
		out = append(out, Zone{Name: name, ID: id})
	}
	return out
}

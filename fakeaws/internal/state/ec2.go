package state

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// SeedVPC adds (or replaces) a VPC. CIDRs must be valid prefixes.
func (s *Store) SeedVPC(v VPC) (VPC, error) {
	if len(v.CIDRs) == 0 {
		return VPC{}, query.Errorf("MissingParameter", "a VPC needs at least one CIDR block")
	}
	for _, c := range v.CIDRs {
		if _, err := netip.ParsePrefix(c); err != nil {
			return VPC{}, query.Errorf("InvalidParameterValue", "invalid CIDR %q", c)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v.ID == "" {
		v.ID = s.newID("vpc-", 17)
	}
	v.CIDRs = slices.Clone(v.CIDRs)
	v.Tags = cloneTags(v.Tags)
	if v.IsDefault {
		for _, o := range s.vpcs {
			o.IsDefault = false
		}
		s.defaultVPC = v.ID
	}
	s.vpcs[v.ID] = &v
	return cloneVPC(&v), nil
}

func cloneVPC(v *VPC) VPC {
	c := *v
	c.CIDRs = slices.Clone(v.CIDRs)
	c.Tags = cloneTags(v.Tags)
	return c
}

func (s *Store) vpcOrDefault(id string) (string, error) {
	if id == "" {
		return s.defaultVPC, nil
	}
	if _, ok := s.vpcs[id]; !ok {
		return "", notFound("InvalidVpcID.NotFound", "vpc ID", id)
	}
	return id, nil
}

func (s *Store) checkGroups(ids []string) error {
	for _, g := range ids {
		if _, ok := s.sgs[g]; !ok {
			return notFound("InvalidGroup.NotFound", "security group", g)
		}
	}
	return nil
}

// SeedInstance adds (or replaces) an instance and its primary ENI (device index 0, the instance's private IP
// and groups; a replaced instance's primary ENI loses any secondary IPs). ENIs attached at other device
// indexes stay attached.
func (s *Store) SeedInstance(in Instance) (Instance, error) {
	if !strings.HasPrefix(in.ID, "i-") {
		return Instance{}, query.Errorf("InvalidInstanceID.Malformed", "Invalid id: %q", in.ID)
	}
	if _, err := netip.ParseAddr(in.PrivateIP); err != nil {
		return Instance{}, query.Errorf("InvalidParameterValue", "invalid private IP %q", in.PrivateIP)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vpc, err := s.vpcOrDefault(in.VPCID)
	if err != nil {
		return Instance{}, err
	}
	if err := s.checkGroups(in.SecurityGroupIDs); err != nil {
		return Instance{}, err
	}
	in.VPCID = vpc
	if in.State == "" {
		in.State = "running"
	}
	if in.PrimaryENIID == "" {
		in.PrimaryENIID = "eni-" + strings.TrimPrefix(in.ID, "i-")
	}
	if old, ok := s.instances[in.ID]; ok && old.PrimaryENIID != in.PrimaryENIID {
		return Instance{}, query.Errorf("InvalidParameterValue", "The primary network interface of instance '%s' is %s and cannot change", in.ID, old.PrimaryENIID)
	}
	if e, ok := s.enis[in.PrimaryENIID]; ok && e.InstanceID != in.ID {
		return Instance{}, query.Errorf("InvalidNetworkInterface.InUse", "Interface: [%s] in use.", e.ID)
	}
	in.SecurityGroupIDs = slices.Clone(in.SecurityGroupIDs)
	in.Tags = cloneTags(in.Tags)
	if _, ok := s.instances[in.ID]; !ok {
		s.instOrder.add(in.ID)
	}
	s.instances[in.ID] = &in
	s.putENI(&ENI{
		ID: in.PrimaryENIID, PrivateIPs: []string{in.PrivateIP}, SecurityGroupIDs: slices.Clone(in.SecurityGroupIDs),
		SubnetID: in.SubnetID, AvailabilityZone: in.AvailabilityZone, VPCID: vpc, InstanceID: in.ID,
		InterfaceType: InterfaceTypeInterface, MACAddress: macAddress(in.PrimaryENIID), Description: "primary network interface",
	})
	return cloneInstance(&in), nil
}

func cloneInstance(in *Instance) Instance {
	c := *in
	c.SecurityGroupIDs = slices.Clone(in.SecurityGroupIDs)
	c.Tags = cloneTags(in.Tags)
	return c
}

// VPCs returns all VPCs sorted by ID.
func (s *Store) VPCs() []VPC {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]VPC, 0, len(s.vpcs))
	for _, k := range sortedKeys(s.vpcs) {
		out = append(out, cloneVPC(s.vpcs[k]))
	}
	return out
}

// Instances returns all instances sorted by ID.
func (s *Store) Instances() []Instance {
	s.mu.Lock()
	defer s.mu.Unlock()
	return inOrder(s.instances, s.instOrder.keys(func(id string) bool { _, ok := s.instances[id]; return ok }), cloneInstance)
}

// InstancesByID returns the instances of ids in order, and the IDs that do not exist.
func (s *Store) InstancesByID(ids []string) (found []Instance, missing []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		if in, ok := s.instances[id]; ok {
			found = append(found, cloneInstance(in))
		} else {
			missing = append(missing, id)
		}
	}
	return found, missing
}

// CreateTags tags EC2 resources (vpc-, i-, eni-, subnet-, sg-, lt-). All IDs must exist; nothing changes otherwise.
func (s *Store) CreateTags(ids []string, tags []Tag) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	targets, err := s.ec2TagTargets(ids)
	if err != nil {
		return err
	}
	for _, p := range targets {
		merged := mergeTags(cloneTags(*p), tags)
		if len(merged) > 50 {
			return query.Errorf("TagLimitExceeded", "The maximum number of tags (50) for a resource has been exceeded")
		}
	}
	for _, p := range targets {
		*p = mergeTags(*p, tags)
	}
	return nil
}

// DeleteTags removes tags from EC2 resources: a tag with an empty value goes whatever its value, one with
// a value only if it matches. All IDs must exist.
func (s *Store) DeleteTags(ids []string, tags []Tag, values []bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	targets, err := s.ec2TagTargets(ids)
	if err != nil {
		return err
	}
	for _, p := range targets {
		*p = slices.DeleteFunc(*p, func(t Tag) bool {
			for i, d := range tags {
				if d.Key == t.Key && (!values[i] || d.Value == t.Value) {
					return true
				}
			}
			return false
		})
	}
	return nil
}

// ec2TagTargets resolves resource IDs to their tag lists, or AWS's error for the first that does not exist.
func (s *Store) ec2TagTargets(ids []string) ([]*[]Tag, error) {
	targets := make([]*[]Tag, 0, len(ids))
	for _, id := range ids {
		p, err := s.ec2Tags(id)
		if err != nil {
			return nil, err
		}
		targets = append(targets, p)
	}
	return targets, nil
}

func (s *Store) ec2Tags(id string) (*[]Tag, error) {
	switch {
	case strings.HasPrefix(id, "vpc-"):
		if v, ok := s.vpcs[id]; ok {
			return &v.Tags, nil
		}
		return nil, notFound("InvalidVpcID.NotFound", "vpc ID", id)
	case strings.HasPrefix(id, "i-"):
		if v, ok := s.instances[id]; ok {
			return &v.Tags, nil
		}
		return nil, query.Errorf("InvalidInstanceID.NotFound", "The instance ID '%s' does not exist", id)
	case strings.HasPrefix(id, "eni-"):
		if v, ok := s.enis[id]; ok {
			return &v.Tags, nil
		}
		return nil, notFound("InvalidNetworkInterfaceID.NotFound", "networkInterface ID", id)
	case strings.HasPrefix(id, "subnet-"):
		if v, ok := s.subnets[id]; ok {
			return &v.Tags, nil
		}
		return nil, notFound("InvalidSubnetID.NotFound", "subnet ID", id)
	case strings.HasPrefix(id, "sg-"):
		if v, ok := s.sgs[id]; ok {
			return &v.Tags, nil
		}
		return nil, notFound("InvalidGroup.NotFound", "security group", id)
	case strings.HasPrefix(id, "lt-"):
		if v, ok := s.lts[id]; ok {
			return &v.Tags, nil
		}
		return nil, query.Errorf("InvalidLaunchTemplateId.NotFound", "The specified launch template, with template ID %s, does not exist.", id)
	}
	return nil, query.Errorf("InvalidID", "The ID '%s' is not valid", id)
}

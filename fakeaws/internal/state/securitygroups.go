package state

import (
	"slices"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

func (s *Store) newSecurityGroup(name, desc, vpc string) *SecurityGroup {
	sg := &SecurityGroup{
		ID: s.newID("sg-", 17), Name: name, Description: desc, VPCID: vpc, OwnerID: s.cfg.AccountID,
		Egress: []Rule{{Protocol: "-1", CIDR: "0.0.0.0/0"}},
	}
	sg.Egress[0].ID = s.newID("sgr-", 17)
	s.sgs[sg.ID] = sg
	return sg
}

func cloneSG(sg *SecurityGroup) SecurityGroup {
	c := *sg
	c.Ingress = slices.Clone(sg.Ingress)
	c.Egress = slices.Clone(sg.Egress)
	c.Tags = cloneTags(sg.Tags)
	return c
}

// CreateSecurityGroup creates a group in vpcID (default VPC when empty).
func (s *Store) CreateSecurityGroup(name, desc, vpcID string, tags []Tag) (SecurityGroup, error) {
	if name == "" {
		return SecurityGroup{}, query.Errorf("MissingParameter", "The request must contain the parameter groupName")
	}
	if desc == "" {
		return SecurityGroup{}, query.Errorf("MissingParameter", "The request must contain the parameter groupDescription")
	}
	if len(name) > 255 || len(desc) > 255 {
		return SecurityGroup{}, query.Errorf("InvalidParameterValue", "Value for parameter GroupName or GroupDescription is too long (max 255)")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	vpc, err := s.vpcOrDefault(vpcID)
	if err != nil {
		return SecurityGroup{}, err
	}
	for _, g := range s.sgs {
		if g.VPCID == vpc && g.Name == name {
			return SecurityGroup{}, query.Errorf("InvalidGroup.Duplicate", "The security group '%s' already exists for VPC '%s'", name, vpc)
		}
	}
	if len(tags) > 50 {
		return SecurityGroup{}, query.Errorf("TagLimitExceeded", "The maximum number of tags (50) for a resource has been exceeded")
	}
	sg := s.newSecurityGroup(name, desc, vpc)
	sg.Tags = cloneTags(tags)
	return cloneSG(sg), nil
}

// FindSecurityGroup resolves a group by ID, or by name in the default VPC when id is empty.
func (s *Store) FindSecurityGroup(id, name string) (SecurityGroup, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sg, err := s.findSG(id, name)
	if err != nil {
		return SecurityGroup{}, err
	}
	return cloneSG(sg), nil
}

func (s *Store) findSG(id, name string) (*SecurityGroup, error) {
	if id != "" {
		if sg, ok := s.sgs[id]; ok {
			return sg, nil
		}
		return nil, notFound("InvalidGroup.NotFound", "security group", id)
	}
	if name == "" {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter groupId or groupName")
	}
	for _, sg := range s.sgs {
		if sg.VPCID == s.defaultVPC && sg.Name == name {
			return sg, nil
		}
	}
	return nil, query.Errorf("InvalidGroup.NotFound", "The security group '%s' does not exist in default VPC '%s'", name, s.defaultVPC)
}

// DeleteSecurityGroup deletes a group that nothing uses or references.
func (s *Store) DeleteSecurityGroup(id, name string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sg, err := s.findSG(id, name)
	if err != nil {
		return "", err
	}
	if sg.Name == "default" {
		return "", query.Errorf("CannotDelete", "the specified group: \"%s\" name: \"default\" cannot be deleted by a user", sg.ID)
	}
	if s.sgUsers[sg.ID] > 0 { // counted, not scanned: there can be tens of thousands of pod ENIs
		return "", query.Errorf("DependencyViolation", "resource %s has a dependent object", sg.ID)
	}
	for _, o := range s.sgs {
		if o.ID == sg.ID {
			continue
		}
		for _, r := range append(slices.Clone(o.Ingress), o.Egress...) {
			if r.SourceGroupID == sg.ID {
				return "", query.Errorf("DependencyViolation", "resource %s has a dependent object", sg.ID)
			}
		}
	}
	delete(s.sgs, sg.ID)
	return sg.ID, nil
}

// SecurityGroups returns all groups sorted by ID.
func (s *Store) SecurityGroups() []SecurityGroup {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]SecurityGroup, 0, len(s.sgs))
	for _, k := range sortedKeys(s.sgs) {
		out = append(out, cloneSG(s.sgs[k]))
	}
	return out
}

// AuthorizeIngress adds rules atomically: any duplicate (already present or repeated) fails the whole request
// with InvalidPermission.Duplicate. It returns the created rules with their IDs.
func (s *Store) AuthorizeIngress(id, name string, rules []Rule) ([]Rule, error) {
	if len(rules) == 0 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter ipPermissions")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sg, err := s.findSG(id, name)
	if err != nil {
		return nil, err
	}
	for i, r := range rules {
		if r.SourceGroupID != "" {
			if _, ok := s.sgs[r.SourceGroupID]; !ok {
				return nil, notFound("InvalidGroup.NotFound", "security group", r.SourceGroupID)
			}
		}
		for _, have := range sg.Ingress {
			if have.SameAs(r) {
				return nil, query.Errorf("InvalidPermission.Duplicate", "the specified rule \"%s\" already exists", describeRule(r))
			}
		}
		for _, prev := range rules[:i] {
			if prev.SameAs(r) {
				return nil, query.Errorf("InvalidPermission.Duplicate", "the specified rule \"%s\" already exists", describeRule(r))
			}
		}
	}
	if s.cfg.MaxRulesPerGroup > 0 && len(sg.Ingress)+len(rules) > s.cfg.MaxRulesPerGroup {
		return nil, query.Errorf("RulesPerSecurityGroupLimitExceeded", "The maximum number of rules per security group has been reached.")
	}
	out := make([]Rule, 0, len(rules))
	for _, r := range rules {
		r.ID = s.newID("sgr-", 17)
		sg.Ingress = append(sg.Ingress, r)
		out = append(out, r)
	}
	return out, nil
}

// RevokeIngress removes the rules that exist (matched by content or by ruleIDs) and returns the ones that did not.
// When nothing matches at all it fails with InvalidPermission.NotFound.
func (s *Store) RevokeIngress(id, name string, rules []Rule, ruleIDs []string) (unknown []Rule, err error) {
	if len(rules) == 0 && len(ruleIDs) == 0 {
		return nil, query.Errorf("MissingParameter", "The request must contain the parameter ipPermissions or securityGroupRuleIds")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	sg, err := s.findSG(id, name)
	if err != nil {
		return nil, err
	}
	for _, rid := range ruleIDs {
		if !slices.ContainsFunc(sg.Ingress, func(h Rule) bool { return h.ID == rid }) {
			return nil, query.Errorf("InvalidSecurityGroupRuleId.NotFound", "The security group rule ID '%s' does not exist", rid)
		}
	}
	removed := 0
	keep := sg.Ingress[:0:0]
	for _, have := range sg.Ingress {
		drop := slices.Contains(ruleIDs, have.ID) || slices.ContainsFunc(rules, have.SameAs)
		if drop {
			removed++
			continue
		}
		keep = append(keep, have)
	}
	for _, r := range rules {
		if !slices.ContainsFunc(sg.Ingress, r.SameAs) {
			unknown = append(unknown, r)
		}
	}
	if removed == 0 {
		return nil, query.Errorf("InvalidPermission.NotFound", "The specified rule does not exist in this security group.")
	}
	sg.Ingress = keep
	return unknown, nil
}

func describeRule(r Rule) string {
	src := r.CIDR
	if src == "" {
		src = r.CIDRv6
	}
	if src == "" {
		src = r.SourceGroupID
	}
	if src == "" {
		src = r.PrefixListID
	}
	return "peer: " + src + ", " + r.Protocol + ", from port: " + itoa(r.FromPort) + ", to port: " + itoa(r.ToPort) + ", ALLOW"
}

func itoa(n int32) string {
	return fmtInt(int64(n))
}

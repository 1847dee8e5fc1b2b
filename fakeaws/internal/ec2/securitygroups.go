package ec2

import (
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

func (s *Service) sgArn(id string) string { return s.arn("security-group", id) }

// arn is the ARN of an EC2 resource: EC2 resources are regional, so the region is always present.
func (s *Service) arn(kind, id string) string {
	return "arn:aws:ec2:" + s.st.Region() + ":" + s.st.AccountID() + ":" + kind + "/" + id
}

func (s *Service) createSecurityGroup(_ time.Time, f *query.Form) (any, error) {
	var tags []state.Tag
	for _, p := range f.Members("TagSpecification") {
		if rt := f.Get(p + ".ResourceType"); rt != "security-group" {
			return nil, query.Errorf("InvalidParameterValue", "'%s' is not a valid taggable resource type for this operation.", rt)
		}
		tags = append(tags, ec2Tags(f, p+".Tag")...)
	}
	if err := validateTags(tags); err != nil {
		return nil, err
	}
	sg, err := s.st.CreateSecurityGroup(f.Get("GroupName"), f.Get("GroupDescription"), f.Get("VpcId"), tags)
	if err != nil {
		return nil, err
	}
	return &createSecurityGroupResponse{GroupID: sg.ID, SecurityGroupArn: s.sgArn(sg.ID), TagSet: wireTags(sg.Tags)}, nil
}

func (s *Service) deleteSecurityGroup(_ time.Time, f *query.Form) (any, error) {
	id, err := s.st.DeleteSecurityGroup(f.Get("GroupId"), f.Get("GroupName"))
	if err != nil {
		return nil, err
	}
	return &deleteSecurityGroupResponse{Return: true, GroupID: id}, nil
}

func sgAttrs(sg state.SecurityGroup) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "group-id":
			return []string{sg.ID}, true
		case "group-name":
			return []string{sg.Name}, true
		case "vpc-id":
			return []string{sg.VPCID}, true
		case "description":
			return []string{sg.Description}, true
		case "owner-id":
			return []string{sg.OwnerID}, true
		case "ip-permission.cidr":
			return ruleValues(sg.Ingress, func(r state.Rule) string { return r.CIDR }), true
		case "ip-permission.group-id":
			return ruleValues(sg.Ingress, func(r state.Rule) string { return r.SourceGroupID }), true
		case "ip-permission.protocol":
			return ruleValues(sg.Ingress, func(r state.Rule) string { return r.Protocol }), true
		case "ip-permission.from-port":
			return ruleValues(sg.Ingress, func(r state.Rule) string { return strconv.Itoa(int(r.FromPort)) }), true
		case "ip-permission.to-port":
			return ruleValues(sg.Ingress, func(r state.Rule) string { return strconv.Itoa(int(r.ToPort)) }), true
		}
		return tagAttrs(sg.Tags, name)
	}
}

func ruleValues(rs []state.Rule, fn func(state.Rule) string) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		if v := fn(r); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func (s *Service) describeSecurityGroups(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("GroupId")
	names := f.Strings("GroupName")
	all := s.st.SecurityGroups()
	var sel []state.SecurityGroup
	if len(ids) > 0 || len(names) > 0 {
		for _, id := range ids {
			if !strings.HasPrefix(id, "sg-") {
				return nil, query.Errorf("InvalidGroupId.Malformed", "Invalid id: \"%s\" (expecting \"sg-...\")", id)
			}
			i := slices.IndexFunc(all, func(g state.SecurityGroup) bool { return g.ID == id })
			if i < 0 {
				return nil, query.Errorf("InvalidGroup.NotFound", "The security group '%s' does not exist", id)
			}
			sel = append(sel, all[i])
		}
		for _, n := range names {
			i := slices.IndexFunc(all, func(g state.SecurityGroup) bool { return g.Name == n && g.VPCID == s.st.DefaultVPCID() })
			if i < 0 {
				return nil, query.Errorf("InvalidGroup.NotFound", "The security group '%s' does not exist in default VPC '%s'", n, s.st.DefaultVPCID())
			}
			sel = append(sel, all[i])
		}
	} else {
		sel = all
	}
	var matched []state.SecurityGroup
	for _, sg := range sel {
		ok, err := match(fs, sgAttrs(sg))
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, sg)
		}
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0 || len(names) > 0)
	if err != nil {
		return nil, err
	}
	res := &describeSecurityGroupsResponse{NextToken: next, SecurityGroupInfo: make([]xSecurityGroup, 0, end-start)}
	for _, sg := range matched[start:end] {
		res.SecurityGroupInfo = append(res.SecurityGroupInfo, xSecurityGroup{
			OwnerID: sg.OwnerID, GroupID: sg.ID, GroupName: sg.Name, GroupDescription: sg.Description, VpcID: sg.VPCID,
			SecurityGroupArn: s.sgArn(sg.ID), IPPermissions: permissions(sg.Ingress, sg.OwnerID),
			IPPermissionsEgress: permissions(sg.Egress, sg.OwnerID), TagSet: wireTags(sg.Tags),
		})
	}
	return res, nil
}

// permissions groups single-source rules into EC2 IpPermissions by protocol and port range.
func permissions(rules []state.Rule, owner string) []xPermission {
	out := []xPermission{}
	type key struct {
		proto    string
		from, to int32
	}
	index := map[key]int{}
	for _, r := range rules {
		k := key{r.Protocol, r.FromPort, r.ToPort}
		i, ok := index[k]
		if !ok {
			p := xPermission{IPProtocol: r.Protocol}
			if r.Protocol != "-1" {
				from, to := r.FromPort, r.ToPort
				p.FromPort, p.ToPort = &from, &to
			}
			out = append(out, p)
			i = len(out) - 1
			index[k] = i
		}
		p := &out[i]
		switch {
		case r.CIDR != "":
			p.IPRanges = append(p.IPRanges, xIPRange{CidrIP: r.CIDR, Description: r.Description})
		case r.CIDRv6 != "":
			p.IPv6Ranges = append(p.IPv6Ranges, xIPv6Range{CidrIPv6: r.CIDRv6, Description: r.Description})
		case r.SourceGroupID != "":
			p.Groups = append(p.Groups, xPair{GroupID: r.SourceGroupID, UserID: owner, Description: r.Description})
		case r.PrefixListID != "":
			p.PrefixListIDs = append(p.PrefixListIDs, xPrefixList{PrefixListID: r.PrefixListID, Description: r.Description})
		}
	}
	return out
}

var protocolNumbers = map[string]string{"6": "tcp", "17": "udp", "1": "icmp", "58": "icmpv6", "all": "-1"}

// NormalizeProtocol maps protocol numbers and case to EC2's canonical names.
func NormalizeProtocol(p string) string {
	p = strings.ToLower(p)
	if n, ok := protocolNumbers[p]; ok {
		return n
	}
	return p
}

func portRange(proto string, from, to int64, hasFrom, hasTo bool) (int32, int32, error) {
	switch proto {
	case "-1":
		return 0, 0, nil
	case "tcp", "udp":
		if !hasFrom || !hasTo || from < 0 || to > 65535 || from > to {
			return 0, 0, query.Errorf("InvalidParameterValue", "Invalid port range: from %d to %d; both are required and must satisfy 0 <= from <= to <= 65535", from, to)
		}
	case "icmp", "icmpv6":
		if !hasFrom {
			from = -1
		}
		if !hasTo {
			to = -1
		}
		if from < -1 || from > 255 || to < -1 || to > 255 {
			return 0, 0, query.Errorf("InvalidParameterValue", "Invalid ICMP type/code %d/%d", from, to)
		}
	default:
		n, err := strconv.Atoi(proto)
		if err != nil || n < 0 || n > 255 {
			return 0, 0, query.Errorf("InvalidParameterValue", "Invalid value '%s' for IP protocol. Unknown protocol.", proto)
		}
	}
	return int32(from), int32(to), nil
}

// Rules parses IpPermissions.N (and the legacy top-level CidrIp form) into single-source rules.
func Rules(f *query.Form) ([]state.Rule, error) {
	var out []state.Rule
	add := func(prefix string) error {
		proto := NormalizeProtocol(f.Get(prefix + "IpProtocol"))
		if proto == "" {
			return query.Errorf("MissingParameter", "The request must contain the parameter ipProtocol")
		}
		from, hasFrom, err1 := f.Int(prefix + "FromPort")
		to, hasTo, err2 := f.Int(prefix + "ToPort")
		if err1 != nil || err2 != nil {
			return query.Errorf("InvalidParameterValue", "Invalid port value")
		}
		fp, tp, err := portRange(proto, from, to, hasFrom, hasTo)
		if err != nil {
			return err
		}
		base := state.Rule{Protocol: proto, FromPort: fp, ToPort: tp}
		n := 0
		for _, p := range f.Members(prefix + "IpRanges") {
			c := f.Get(p + ".CidrIp")
			if pfx, err := netip.ParsePrefix(c); err != nil || !pfx.Addr().Is4() {
				return query.Errorf("InvalidParameterValue", "CIDR block %s is malformed", c)
			}
			r := base
			r.CIDR, r.Description = c, f.Get(p+".Description")
			out, n = append(out, r), n+1
		}
		for _, p := range f.Members(prefix + "Ipv6Ranges") {
			c := f.Get(p + ".CidrIpv6")
			if pfx, err := netip.ParsePrefix(c); err != nil || !pfx.Addr().Is6() {
				return query.Errorf("InvalidParameterValue", "CIDR block %s is malformed", c)
			}
			r := base
			r.CIDRv6, r.Description = c, f.Get(p+".Description")
			out, n = append(out, r), n+1
		}
		for _, p := range f.Members(prefix + "Groups") {
			g := f.Get(p + ".GroupId")
			if !strings.HasPrefix(g, "sg-") {
				return query.Errorf("InvalidGroupId.Malformed", "Invalid id: \"%s\" (expecting \"sg-...\")", g)
			}
			r := base
			r.SourceGroupID, r.Description = g, f.Get(p+".Description")
			out, n = append(out, r), n+1
		}
		for _, p := range f.Members(prefix + "PrefixListIds") {
			r := base
			r.PrefixListID, r.Description = f.Get(p+".PrefixListId"), f.Get(p+".Description")
			out, n = append(out, r), n+1
		}
		if n == 0 {
			return query.Errorf("MissingParameter", "An IP permission must name at least one source: a CIDR range, a security group or a prefix list")
		}
		return nil
	}
	for _, p := range f.Members("IpPermissions") {
		if err := add(p + "."); err != nil {
			return nil, err
		}
	}
	if c := f.Get("CidrIp"); c != "" {
		proto := NormalizeProtocol(f.Get("IpProtocol"))
		from, hasFrom, _ := f.Int("FromPort")
		to, hasTo, _ := f.Int("ToPort")
		fp, tp, err := portRange(proto, from, to, hasFrom, hasTo)
		if err != nil {
			return nil, err
		}
		if _, err := netip.ParsePrefix(c); err != nil {
			return nil, query.Errorf("InvalidParameterValue", "CIDR block %s is malformed", c)
		}
		out = append(out, state.Rule{Protocol: proto, FromPort: fp, ToPort: tp, CIDR: c})
	}
	return out, nil
}

func (s *Service) authorizeIngress(_ time.Time, f *query.Form) (any, error) {
	rules, err := Rules(f)
	if err != nil {
		return nil, err
	}
	created, err := s.st.AuthorizeIngress(f.Get("GroupId"), f.Get("GroupName"), rules)
	if err != nil {
		return nil, err
	}
	sg, err := s.st.FindSecurityGroup(f.Get("GroupId"), f.Get("GroupName"))
	if err != nil {
		return nil, err
	}
	res := &authorizeResponse{Return: true}
	for _, r := range created {
		x := xSecurityGroupRule{SecurityGroupRuleID: r.ID, SecurityGroupRuleArn: s.arn("security-group-rule", r.ID), GroupID: sg.ID, GroupOwnerID: sg.OwnerID, IPProtocol: r.Protocol,
			FromPort: r.FromPort, ToPort: r.ToPort, CidrIPv4: r.CIDR, CidrIPv6: r.CIDRv6, PrefixListID: r.PrefixListID, Description: r.Description}
		if r.Protocol == "-1" {
			x.FromPort, x.ToPort = -1, -1
		}
		if r.SourceGroupID != "" {
			x.Referenced = &struct {
				GroupID string `xml:"groupId"`
			}{GroupID: r.SourceGroupID}
		}
		res.SecurityGroupRuleSet = append(res.SecurityGroupRuleSet, x)
	}
	return res, nil
}

func (s *Service) revokeIngress(_ time.Time, f *query.Form) (any, error) {
	rules, err := Rules(f)
	if err != nil {
		return nil, err
	}
	unknown, err := s.st.RevokeIngress(f.Get("GroupId"), f.Get("GroupName"), rules, f.Strings("SecurityGroupRuleId"))
	if err != nil {
		return nil, err
	}
	res := &revokeResponse{Return: true}
	if len(unknown) > 0 {
		res.UnknownIPPermissionSet = permissions(unknown, s.st.AccountID())
	}
	return res, nil
}

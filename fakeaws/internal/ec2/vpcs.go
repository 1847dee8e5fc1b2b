package ec2

import (
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

var stateCodes = map[string]int32{"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48, "stopping": 64, "stopped": 80}

func (s *Service) groupSet(ids []string) []xGroup {
	out := make([]xGroup, 0, len(ids))
	for _, id := range ids {
		g := xGroup{GroupID: id}
		if sg, err := s.st.FindSecurityGroup(id, ""); err == nil {
			g.GroupName = sg.Name
		}
		out = append(out, g)
	}
	return out
}

func privateIPs(ips []string) []xPrivateIP {
	out := make([]xPrivateIP, 0, len(ips))
	for i, ip := range ips {
		out = append(out, xPrivateIP{PrivateIPAddress: ip, Primary: i == 0})
	}
	return out
}

func eniAttrs(e state.ENI, sgName func(string) string) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "network-interface-id":
			return []string{e.ID}, true
		case "vpc-id":
			return []string{e.VPCID}, true
		case "subnet-id":
			return []string{e.SubnetID}, true
		case "availability-zone":
			return []string{e.AvailabilityZone}, true
		case "private-ip-address", "addresses.private-ip-address":
			if name == "private-ip-address" {
				return e.PrivateIPs[:1], true
			}
			return e.PrivateIPs, true
		case "group-id":
			return e.SecurityGroupIDs, true
		case "group-name":
			out := make([]string, 0, len(e.SecurityGroupIDs))
			for _, g := range e.SecurityGroupIDs {
				out = append(out, sgName(g))
			}
			return out, true
		case "attachment.instance-id":
			return []string{e.InstanceID}, true
		case "description":
			return []string{e.Description}, true
		case "status":
			return []string{eniStatus(e)}, true
		case "requester-managed":
			return []string{"false"}, true
		case "interface-type":
			return []string{"interface"}, true
		}
		return tagAttrs(e.Tags, name)
	}
}

func eniStatus(e state.ENI) string {
	if e.InstanceID != "" {
		return "in-use"
	}
	return "available"
}

func (s *Service) sgName(id string) string {
	if sg, err := s.st.FindSecurityGroup(id, ""); err == nil {
		return sg.Name
	}
	return ""
}

func (s *Service) describeNetworkInterfaces(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("NetworkInterfaceId")
	sel, err := s.eniCandidates(ids, fs)
	if err != nil {
		return nil, err
	}
	var matched []state.ENI
	for _, e := range sel {
		ok, err := match(fs, eniAttrs(e, s.sgName))
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, e)
		}
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0)
	if err != nil {
		return nil, err
	}
	res := &describeNetworkInterfacesResponse{NextToken: next, NetworkInterfaceSet: make([]xENI, 0, end-start)}
	for _, e := range matched[start:end] {
		x := xENI{NetworkInterfaceID: e.ID, SubnetID: e.SubnetID, VpcID: e.VPCID, AvailabilityZone: e.AvailabilityZone,
			Description: e.Description, OwnerID: s.st.AccountID(), Status: eniStatus(e), PrivateIPAddress: e.PrivateIPs[0],
			SourceDestCheck: true, GroupSet: s.groupSet(e.SecurityGroupIDs), PrivateIPs: privateIPs(e.PrivateIPs),
			InterfaceType: "interface", TagSet: wireTags(e.Tags)}
		if e.InstanceID != "" {
			x.Attachment = &xAttachment{AttachmentID: "eni-attach-" + strings.TrimPrefix(e.ID, "eni-"), InstanceID: e.InstanceID, Status: "attached"}
		}
		res.NetworkInterfaceSet = append(res.NetworkInterfaceSet, x)
	}
	return res, nil
}

// eniCandidates returns the ENIs the filters are applied to, sorted by ID: those named by ids, else those an
// indexed filter (IP or ID) names, else all. Each is a superset of the matches, so results do not change.
func (s *Service) eniCandidates(ids []string, fs []filter) ([]state.ENI, error) {
	if len(ids) == 0 {
		return s.eniIndexed(fs), nil
	}
	sel, missing := s.st.ENIsByID(ids)
	checked := ids // the first malformed or missing ID decides the error
	if missing >= 0 {
		checked = ids[:missing+1]
	}
	for _, id := range checked {
		if !strings.HasPrefix(id, "eni-") {
			return nil, query.Errorf("InvalidNetworkInterfaceID.Malformed", "Invalid id: \"%s\" (expecting \"eni-...\")", id)
		}
	}
	if missing >= 0 {
		return nil, query.Errorf("InvalidNetworkInterfaceID.NotFound", "The networkInterface ID '%s' does not exist", ids[missing])
	}
	return sel, nil
}

// eniIndexed answers the first filter on private IP or ENI ID from the store's indexes, or lists every ENI.
// The index is used only when every filter name is known: an unknown name fails the scan on the first ENI
// that reaches it, which a smaller candidate set could hide.
func (s *Service) eniIndexed(fs []filter) []state.ENI {
	probe := eniAttrs(state.ENI{PrivateIPs: []string{""}}, func(string) string { return "" })
	for _, fl := range fs {
		if _, known := probe(fl.name); !known {
			return s.st.ENIs()
		}
	}
	for _, fl := range fs {
		if !literal(fl.values) {
			continue
		}
		switch fl.name {
		case "private-ip-address", "addresses.private-ip-address":
			return s.st.ENIsByPrivateIP(fl.values)
		case "network-interface-id":
			return s.st.KnownENIs(fl.values)
		}
	}
	return s.st.ENIs()
}

// literal reports whether no value is a wildcard pattern, so matching is equality and an index lookup exact.
func literal(values []string) bool {
	return !slices.ContainsFunc(values, func(v string) bool { return strings.ContainsAny(v, `*?[\`) })
}

func instanceAttrs(in state.Instance, enis map[string]state.ENI) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "instance-id":
			return []string{in.ID}, true
		case "vpc-id":
			return []string{in.VPCID}, true
		case "subnet-id":
			return []string{in.SubnetID}, true
		case "availability-zone":
			return []string{in.AvailabilityZone}, true
		case "private-ip-address":
			return []string{in.PrivateIP}, true
		case "instance-state-name":
			return []string{in.State}, true
		case "instance.group-id", "group-id":
			return in.SecurityGroupIDs, true
		case "network-interface.network-interface-id":
			return []string{in.PrimaryENIID}, true
		case "network-interface.addresses.private-ip-address":
			if e, ok := enis[in.PrimaryENIID]; ok {
				return e.PrivateIPs, true
			}
			return []string{in.PrivateIP}, true
		}
		return tagAttrs(in.Tags, name)
	}
}

func (s *Service) describeInstances(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("InstanceId")
	sel, err := s.instanceCandidates(ids)
	if err != nil {
		return nil, err
	}
	enis := s.primaryENIs(sel)
	var matched []state.Instance
	for _, in := range sel {
		ok, err := match(fs, instanceAttrs(in, enis))
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, in)
		}
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0)
	if err != nil {
		return nil, err
	}
	res := &describeInstancesResponse{NextToken: next, ReservationSet: make([]xReservation, 0, end-start)}
	for _, in := range matched[start:end] {
		x := xInstance{InstanceID: in.ID, InstanceState: xState{Code: stateCodes[in.State], Name: in.State},
			PrivateIPAddress: in.PrivateIP, SubnetID: in.SubnetID, VpcID: in.VPCID,
			Placement: xPlacement{AvailabilityZone: in.AvailabilityZone, Tenancy: "default"},
			GroupSet:  s.groupSet(in.SecurityGroupIDs), TagSet: wireTags(in.Tags)}
		if e, ok := enis[in.PrimaryENIID]; ok {
			x.NetworkInterfaceSet = []xInstanceENI{{NetworkInterfaceID: e.ID, SubnetID: e.SubnetID, VpcID: e.VPCID,
				OwnerID: s.st.AccountID(), Status: "in-use", PrivateIPAddress: e.PrivateIPs[0], GroupSet: s.groupSet(e.SecurityGroupIDs),
				Attachment: xAttachment{AttachmentID: "eni-attach-" + strings.TrimPrefix(e.ID, "eni-"), Status: "attached"},
				PrivateIPs: privateIPs(e.PrivateIPs), InterfaceType: "interface"}}
		}
		res.ReservationSet = append(res.ReservationSet, xReservation{ReservationID: "r-" + strings.TrimPrefix(in.ID, "i-"), OwnerID: s.st.AccountID(), InstancesSet: []xInstance{x}})
	}
	return res, nil
}

func (s *Service) instanceCandidates(ids []string) ([]state.Instance, error) {
	if len(ids) == 0 {
		return s.st.Instances(), nil
	}
	for _, id := range ids {
		if !strings.HasPrefix(id, "i-") {
			return nil, query.Errorf("InvalidInstanceID.Malformed", "Invalid id: \"%s\"", id)
		}
	}
	sel, missing := s.st.InstancesByID(ids)
	if len(missing) > 0 {
		return nil, query.Errorf("InvalidInstanceID.NotFound", "The instance IDs '%s' do not exist", strings.Join(missing, ", "))
	}
	return sel, nil
}

// primaryENIs maps the primary ENI IDs of ins to their ENIs, fetching only those.
func (s *Service) primaryENIs(ins []state.Instance) map[string]state.ENI {
	ids := make([]string, 0, len(ins))
	for _, in := range ins {
		ids = append(ids, in.PrimaryENIID)
	}
	out := make(map[string]state.ENI, len(ids))
	for _, e := range s.st.KnownENIs(ids) {
		out[e.ID] = e
	}
	return out
}

func vpcAttrs(v state.VPC) attrs {
	return func(name string) ([]string, bool) {
		switch name {
		case "vpc-id":
			return []string{v.ID}, true
		case "cidr", "cidr-block-association.cidr-block":
			if name == "cidr" {
				return v.CIDRs[:1], true
			}
			return v.CIDRs, true
		case "is-default":
			if v.IsDefault {
				return []string{"true"}, true
			}
			return []string{"false"}, true
		case "state":
			return []string{"available"}, true
		}
		return tagAttrs(v.Tags, name)
	}
}

func (s *Service) describeVpcs(_ time.Time, f *query.Form) (any, error) {
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("VpcId")
	all := s.st.VPCs()
	sel := all
	if len(ids) > 0 {
		sel = nil
		for _, id := range ids {
			i := slices.IndexFunc(all, func(v state.VPC) bool { return v.ID == id })
			if i < 0 {
				return nil, query.Errorf("InvalidVpcID.NotFound", "The vpc ID '%s' does not exist", id)
			}
			sel = append(sel, all[i])
		}
	}
	var matched []state.VPC
	for _, v := range sel {
		ok, err := match(fs, vpcAttrs(v))
		if err != nil {
			return nil, err
		}
		if ok {
			matched = append(matched, v)
		}
	}
	start, end, next, err := page(f, len(matched), len(ids) > 0)
	if err != nil {
		return nil, err
	}
	res := &describeVpcsResponse{NextToken: next, VpcSet: make([]xVpc, 0, end-start)}
	for _, v := range matched[start:end] {
		x := xVpc{VpcID: v.ID, OwnerID: s.st.AccountID(), State: "available", CidrBlock: v.CIDRs[0],
			DhcpOptionsID: "dopt-" + strings.TrimPrefix(v.ID, "vpc-"), InstanceTenancy: "default", IsDefault: v.IsDefault, TagSet: wireTags(v.Tags)}
		for i, c := range v.CIDRs {
			x.CidrBlockAssociationSet = append(x.CidrBlockAssociationSet, xCidrAssociation{
				AssociationID: "vpc-cidr-assoc-" + strings.TrimPrefix(v.ID, "vpc-") + string(rune('a'+i%26)), CidrBlock: c, State: "associated"})
		}
		res.VpcSet = append(res.VpcSet, x)
	}
	return res, nil
}

package ec2

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// eniAttrs answers DescribeNetworkInterfaces' filter names for one ENI. Attachment filters have no value for
// an unattached ENI (a branch ENI is in use through its trunk, not attached).
func eniAttrs(e state.ENI, account string, sgName func(string) string) attrs {
	return func(name string) ([]string, bool) {
		attached := e.InstanceID != ""
		switch name {
		case "network-interface-id":
			return []string{e.ID}, true
		case "vpc-id":
			return []string{e.VPCID}, true
		case "subnet-id":
			return []string{e.SubnetID}, true
		case "availability-zone":
			return []string{e.AvailabilityZone}, true
		case "private-ip-address":
			return e.PrivateIPs[:1], true
		case "addresses.private-ip-address":
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
			return when(attached, e.InstanceID), true
		case "attachment.instance-owner-id":
			return when(attached, account), true
		case "attachment.device-index":
			return when(attached, strconv.Itoa(int(e.DeviceIndex))), true
		case "attachment.status":
			return when(attached, "attached"), true
		case "attachment.attachment-id":
			return when(attached, attachmentID(e.ID)), true
		case "description":
			return []string{e.Description}, true
		case "status":
			return []string{e.Status()}, true
		case "requester-managed":
			return []string{"false"}, true
		case "interface-type":
			return []string{e.InterfaceType}, true
		case "mac-address":
			return []string{e.MACAddress}, true
		case "owner-id":
			return []string{account}, true
		}
		return tagAttrs(e.Tags, name)
	}
}

func when(ok bool, v string) []string {
	if !ok {
		return nil
	}
	return []string{v}
}

func attachmentID(eniID string) string { return "eni-attach-" + strings.TrimPrefix(eniID, "eni-") }

func (s *Service) sgName(id string) string {
	if sg, err := s.st.FindSecurityGroup(id, ""); err == nil {
		return sg.Name
	}
	return ""
}

func (s *Service) groupSet(ids []string) []xGroup {
	out := make([]xGroup, 0, len(ids))
	for _, id := range ids {
		out = append(out, xGroup{GroupID: id, GroupName: s.sgName(id)})
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
	account := s.st.AccountID()
	var matched []state.ENI
	for _, e := range sel {
		ok, err := match(fs, eniAttrs(e, account, s.sgName))
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
			Description: e.Description, OwnerID: account, Status: e.Status(), MACAddress: e.MACAddress,
			PrivateIPAddress: e.PrivateIPs[0], SourceDestCheck: true, GroupSet: s.groupSet(e.SecurityGroupIDs),
			PrivateIPs: privateIPs(e.PrivateIPs), InterfaceType: e.InterfaceType, TagSet: wireTags(e.Tags)}
		if e.InstanceID != "" {
			x.Attachment = &xAttachment{AttachmentID: attachmentID(e.ID), InstanceID: e.InstanceID, InstanceOwnerID: account,
				DeviceIndex: e.DeviceIndex, Status: "attached", DeleteOnTermination: e.DeviceIndex == 0}
		}
		res.NetworkInterfaceSet = append(res.NetworkInterfaceSet, x)
	}
	return res, nil
}

// eniCandidates returns the ENIs the filters are applied to, sorted by ID: those named by ids, else those an
// indexed filter (IP, ID or instance) names, else all. Each is a superset of the matches, so results do not
// change.
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

// eniIndexed answers the first filter on private IP, ENI ID or attached instance from the store's indexes, or
// lists every ENI. The index is used only when every filter name is known: an unknown name fails the scan on
// the first ENI that reaches it, which a smaller candidate set could hide.
func (s *Service) eniIndexed(fs []filter) []state.ENI {
	probe := eniAttrs(state.ENI{PrivateIPs: []string{""}}, "", func(string) string { return "" })
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
		case "attachment.instance-id":
			return s.st.ENIsByInstance(fl.values)
		}
	}
	return s.st.ENIs()
}

// literal reports whether no value is a wildcard pattern, so matching is equality and an index lookup exact.
func literal(values []string) bool {
	return !slices.ContainsFunc(values, func(v string) bool { return strings.ContainsAny(v, `*?[\`) })
}

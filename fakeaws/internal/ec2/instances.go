package ec2

import (
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/catalog"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

var stateCodes = map[string]int32{"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48, "stopping": 64, "stopped": 80}

// instanceAttrs answers DescribeInstances' filter names for one instance; network-interface.* filters cover
// every attached ENI (its primary, trunk and further ENIs with their secondary IPs).
func instanceAttrs(in state.Instance, enis []state.ENI) attrs {
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
		case "instance-state-code":
			return []string{strconv.Itoa(int(stateCodes[in.State]))}, true
		case "instance-type":
			return []string{in.InstanceType}, true
		case "image-id":
			return []string{in.ImageID}, true
		case "instance-lifecycle":
			return []string{in.Lifecycle}, true
		case "launch-template-id":
			return []string{in.LaunchTemplateID}, true
		case "instance.group-id", "group-id":
			return in.SecurityGroupIDs, true
		case "network-interface.network-interface-id":
			out := make([]string, 0, len(enis))
			for _, e := range enis {
				out = append(out, e.ID)
			}
			return out, true
		case "network-interface.addresses.private-ip-address":
			var out []string
			for _, e := range enis {
				out = append(out, e.PrivateIPs...)
			}
			return out, true
		}
		return tagAttrs(in.Tags, name)
	}
}

func (s *Service) describeInstances(now time.Time, f *query.Form) (any, error) {
	s.st.Settle(now)
	fs, err := filters(f)
	if err != nil {
		return nil, err
	}
	ids := f.Strings("InstanceId")
	sel, err := s.instanceCandidates(ids)
	if err != nil {
		return nil, err
	}
	enis := s.attachedENIs(sel)
	var matched []state.Instance
	for _, in := range sel {
		ok, err := match(fs, instanceAttrs(in, enis[in.ID]))
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
	account := s.st.AccountID()
	res := &describeInstancesResponse{NextToken: next, ReservationSet: make([]xReservation, 0, end-start)}
	for _, in := range matched[start:end] {
		res.ReservationSet = append(res.ReservationSet, xReservation{ReservationID: reservationID(in.ID), OwnerID: account,
			InstancesSet: []xInstance{s.wireInstance(in, enis[in.ID])}})
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

// attachedENIs maps the instances to their attached ENIs by device index, fetching only those.
func (s *Service) attachedENIs(ins []state.Instance) map[string][]state.ENI {
	ids := make([]string, 0, len(ins))
	for _, in := range ins {
		ids = append(ids, in.ID)
	}
	return s.st.AttachedENIs(ids)
}

func reservationID(instanceID string) string { return "r-" + strings.TrimPrefix(instanceID, "i-") }

// wireInstance is an instance as DescribeInstances and RunInstances answer it, with its attached ENIs.
func (s *Service) wireInstance(in state.Instance, enis []state.ENI) xInstance {
	account := s.st.AccountID()
	x := xInstance{InstanceID: in.ID, InstanceState: xState{Code: stateCodes[in.State], Name: in.State},
		PrivateIPAddress: in.PrivateIP, SubnetID: in.SubnetID, VpcID: in.VPCID, ImageID: in.ImageID,
		InstanceType: in.InstanceType, Lifecycle: in.Lifecycle,
		Placement: xPlacement{AvailabilityZone: in.AvailabilityZone, Tenancy: "default"},
		GroupSet:  s.groupSet(in.SecurityGroupIDs), TagSet: wireTags(in.Tags)}
	if !in.LaunchTime.IsZero() {
		x.LaunchTime = in.LaunchTime.UTC().Format("2006-01-02T15:04:05.000Z")
		x.PrivateDNSName = "ip-" + strings.ReplaceAll(in.PrivateIP, ".", "-") + "." + s.st.Region() + ".compute.internal"
	}
	if t, ok := catalog.Lookup(in.InstanceType); ok {
		x.Architecture, x.Hypervisor = t.Architecture, "xen" // EC2 reports "xen" for Nitro instances too
	}
	if in.IAMInstanceProfileARN != "" {
		x.IAMInstanceProfile = &xProfile{ARN: in.IAMInstanceProfileARN}
	}
	if in.StateReason != "" {
		x.StateReason = &xStateReason{Code: in.StateReason, Message: in.StateReason + ": User initiated shutdown"}
		x.StateTransitionReason = "User initiated (" + in.TerminatedAt.Add(-state.ShutdownDelay).UTC().Format("2006-01-02 15:04:05 MST") + ")"
	}
	for _, e := range enis {
		x.NetworkInterfaceSet = append(x.NetworkInterfaceSet, xInstanceENI{NetworkInterfaceID: e.ID, SubnetID: e.SubnetID,
			VpcID: e.VPCID, Description: e.Description, OwnerID: account, Status: e.Status(), MACAddress: e.MACAddress,
			PrivateIPAddress: e.PrivateIPs[0], SourceDestCheck: true, GroupSet: s.groupSet(e.SecurityGroupIDs),
			Attachment: xInstanceAttachment{AttachmentID: attachmentID(e.ID), DeviceIndex: e.DeviceIndex, Status: "attached",
				DeleteOnTermination: e.DeviceIndex == 0},
			PrivateIPs: privateIPs(e.PrivateIPs), InterfaceType: e.InterfaceType})
	}
	return x
}

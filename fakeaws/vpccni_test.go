package fakeaws_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// cniNode seeds a node the way the VPC CNI and the VPC resource controller leave it: an instance whose primary
// ENI holds pod IPs as secondary addresses, a trunk ENI at device index 1, a further ENI at device index 2 with
// more pod IPs, and a pod's branch ENI (not attached, tagged with its trunk).
func cniNode(t *testing.T, e *env) (nodeSG, podSG fakeaws.SecurityGroup) {
	t.Helper()
	nodeSG = must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("nodes", "d", "", fakeaws.Tag{Key: "kubernetes.io/cluster/c1", Value: "owned"}))
	podSG = must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("pods", "d", "", fakeaws.Tag{Key: "kubernetes.io/cluster/c1", Value: "owned"}))
	in := must[fakeaws.Instance](t)(e.srv.SeedInstance(fakeaws.Instance{ID: "i-0000000000000000a", PrivateIP: "10.0.0.10",
		AvailabilityZone: "us-west-2a", SecurityGroupIDs: []string{nodeSG.ID}}))
	for _, eni := range []fakeaws.ENI{
		{ID: in.PrimaryENIID, InstanceID: in.ID, PrivateIPs: []string{"10.0.0.10", "10.0.4.1", "10.0.4.2"}, SecurityGroupIDs: []string{nodeSG.ID}, Description: "primary network interface"},
		{ID: "eni-trunk", InstanceID: in.ID, DeviceIndex: 1, InterfaceType: "trunk", PrivateIPs: []string{"10.0.0.11"}, SecurityGroupIDs: []string{nodeSG.ID}, Description: "aws-k8s-trunk-eni"},
		{ID: "eni-second", InstanceID: in.ID, DeviceIndex: 2, PrivateIPs: []string{"10.0.0.12", "10.0.4.3"}, SecurityGroupIDs: []string{nodeSG.ID}},
		{ID: "eni-branch", InterfaceType: "branch", PrivateIPs: []string{"10.0.8.1"}, SecurityGroupIDs: []string{podSG.ID}, MACAddress: "0a:00:00:00:00:01",
			Description: "aws-k8s-branch-eni", Tags: []fakeaws.Tag{{Key: "vpcresources.k8s.aws/trunk-eni-id", Value: "eni-trunk"}}},
	} {
		must[fakeaws.ENI](t)(e.srv.SeedENI(eni))
	}
	return nodeSG, podSG
}

// DescribeInstances lists every attached ENI by device index with its addresses, so a pod IP can be found
// among the node's ENIs and the primary ENI picked by device index 0.
func TestDescribeInstancesAttachedENIs(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	nodeSG, _ := cniNode(t, e)
	out := must[*ec2.DescribeInstancesOutput](t)(e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{"i-0000000000000000a"}}))
	enis := out.Reservations[0].Instances[0].NetworkInterfaces
	var got []string
	for _, n := range enis {
		a := n.Attachment
		got = append(got, fmt.Sprintf("%s/%d/%s/%d", aws.ToString(n.NetworkInterfaceId), aws.ToInt32(a.DeviceIndex), aws.ToString(n.InterfaceType), len(n.PrivateIpAddresses)))
		if a.Status != ec2types.AttachmentStatusAttached || aws.ToString(a.AttachmentId) == "" || aws.ToString(n.MacAddress) == "" ||
			n.Status != ec2types.NetworkInterfaceStatusInUse || aws.ToString(n.Groups[0].GroupId) != nodeSG.ID || aws.ToBool(a.DeleteOnTermination) != (aws.ToInt32(a.DeviceIndex) == 0) {
			t.Errorf("ENI %+v attachment %+v", n, a)
		}
	}
	if want := []string{"eni-0000000000000000a/0/interface/3", "eni-trunk/1/trunk/1", "eni-second/2/interface/2"}; !slices.Equal(got, want) {
		t.Fatalf("network interfaces %v, want %v", got, want)
	}
	if ip := enis[0].PrivateIpAddresses; !aws.ToBool(ip[0].Primary) || aws.ToBool(ip[1].Primary) || aws.ToString(ip[1].PrivateIpAddress) != "10.0.4.1" {
		t.Fatalf("primary ENI addresses %+v", ip)
	}
	for _, ip := range []string{"10.0.4.3", "10.0.0.11"} { // a secondary IP of a further ENI; the trunk's IP
		byIP := must[*ec2.DescribeInstancesOutput](t)(e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
			{Name: aws.String("network-interface.addresses.private-ip-address"), Values: []string{ip}}}}))
		if len(byIP.Reservations) != 1 {
			t.Fatalf("instance by ENI address %s: %d reservations", ip, len(byIP.Reservations))
		}
	}
	byENI := must[*ec2.DescribeInstancesOutput](t)(e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{Filters: []ec2types.Filter{
		{Name: aws.String("network-interface.network-interface-id"), Values: []string{"eni-branch"}}}}))
	if len(byENI.Reservations) != 0 {
		t.Fatal("a branch ENI is not attached to the instance")
	}
}

// DescribeNetworkInterfaces answers the filters a VPC CNI reader sends, with AWS's shapes: attachments of
// attached ENIs, none for a branch ENI (in use through its trunk).
func TestDescribeNetworkInterfacesVPCCNI(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	_, podSG := cniNode(t, e)
	f := func(name string, values ...string) ec2types.Filter {
		return ec2types.Filter{Name: aws.String(name), Values: values}
	}
	vpc := e.srv.DefaultVPCID()
	for _, tc := range []struct {
		filters []ec2types.Filter
		want    []string
	}{
		{[]ec2types.Filter{f("attachment.instance-id", "i-0000000000000000a")}, []string{"eni-0000000000000000a", "eni-second", "eni-trunk"}},
		{[]ec2types.Filter{f("attachment.instance-id", "i-0000000000000000a"), f("attachment.device-index", "0")}, []string{"eni-0000000000000000a"}},
		{[]ec2types.Filter{f("attachment.instance-id", "i-*"), f("interface-type", "trunk")}, []string{"eni-trunk"}},
		{[]ec2types.Filter{f("vpc-id", vpc), f("addresses.private-ip-address", "10.0.4.2", "10.0.8.1")}, []string{"eni-0000000000000000a", "eni-branch"}},
		{[]ec2types.Filter{f("interface-type", "branch"), f("tag:vpcresources.k8s.aws/trunk-eni-id", "eni-trunk")}, []string{"eni-branch"}},
		{[]ec2types.Filter{f("attachment.status", "attached"), f("status", "in-use"), f("group-id", podSG.ID)}, nil},
		{[]ec2types.Filter{f("mac-address", "0a:00:00:00:00:01")}, []string{"eni-branch"}},
	} {
		out := must[*ec2.DescribeNetworkInterfacesOutput](t)(e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{Filters: tc.filters}))
		var got []string
		for _, n := range out.NetworkInterfaces {
			got = append(got, aws.ToString(n.NetworkInterfaceId))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s=%v...: got %v, want %v", *tc.filters[0].Name, tc.filters[0].Values, got, tc.want)
		}
	}

	// By ID, as a reader of the pod-eni annotation asks.
	out := must[*ec2.DescribeNetworkInterfacesOutput](t)(e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-branch", "eni-trunk"}}))
	branch, trunk := out.NetworkInterfaces[0], out.NetworkInterfaces[1]
	if branch.InterfaceType != ec2types.NetworkInterfaceTypeBranch || branch.Status != ec2types.NetworkInterfaceStatusInUse || branch.Attachment != nil ||
		aws.ToString(branch.Groups[0].GroupId) != podSG.ID || aws.ToString(branch.MacAddress) != "0a:00:00:00:00:01" ||
		aws.ToString(branch.PrivateIpAddress) != "10.0.8.1" || aws.ToString(branch.TagSet[0].Value) != "eni-trunk" {
		t.Fatalf("branch ENI %+v", branch)
	}
	calls := e.srv.Recorder().Calls() // the call log names the filters and counts the IDs
	if last, prev := calls[len(calls)-1], calls[len(calls)-2]; last.ResourceIDs != 2 || len(last.Filters) != 0 ||
		!slices.Equal(prev.Filters, []string{"mac-address"}) || prev.ResourceIDs != 0 {
		t.Fatalf("recorded %+v, %+v", prev, last)
	}
	if a := trunk.Attachment; trunk.InterfaceType != ec2types.NetworkInterfaceTypeTrunk || a == nil || aws.ToString(a.InstanceId) != "i-0000000000000000a" ||
		aws.ToInt32(a.DeviceIndex) != 1 || aws.ToString(a.InstanceOwnerId) != aws.ToString(trunk.OwnerId) || aws.ToBool(a.DeleteOnTermination) {
		t.Fatalf("trunk ENI %+v attachment %+v", trunk, trunk.Attachment)
	}
}

// Seeding refuses what EC2 would: a branch ENI attached to an instance, a taken device index, a second trunk,
// an unknown instance, detaching the primary ENI, an unknown interface type, a primary ENI in use elsewhere.
func TestSeedENIAttachmentErrors(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	cniNode(t, e)
	for _, tc := range []struct {
		eni  fakeaws.ENI
		code string
	}{
		{fakeaws.ENI{ID: "eni-x", InterfaceType: "branch", InstanceID: "i-0000000000000000a", DeviceIndex: 3, PrivateIPs: []string{"10.0.8.9"}}, "InvalidParameterCombination"},
		{fakeaws.ENI{ID: "eni-x", InstanceID: "i-0000000000000000a", DeviceIndex: 2, PrivateIPs: []string{"10.0.8.9"}}, "InvalidParameterValue"},
		{fakeaws.ENI{ID: "eni-x", InstanceID: "i-0000000000000000a", DeviceIndex: 0, PrivateIPs: []string{"10.0.8.9"}}, "InvalidParameterValue"},
		{fakeaws.ENI{ID: "eni-x", InstanceID: "i-0000000000000000a", DeviceIndex: 3, InterfaceType: "trunk", PrivateIPs: []string{"10.0.8.9"}}, "InvalidParameterValue"},
		{fakeaws.ENI{ID: "eni-x", InstanceID: "i-00000000000000099", DeviceIndex: 1, PrivateIPs: []string{"10.0.8.9"}}, "InvalidInstanceID.NotFound"},
		{fakeaws.ENI{ID: "eni-x", DeviceIndex: 1, PrivateIPs: []string{"10.0.8.9"}}, "InvalidParameterCombination"},
		{fakeaws.ENI{ID: "eni-0000000000000000a", PrivateIPs: []string{"10.0.0.10"}}, "OperationNotPermitted"},
		{fakeaws.ENI{ID: "eni-x", InterfaceType: "efs", PrivateIPs: []string{"10.0.8.9"}}, "InvalidParameterValue"},
	} {
		_, err := e.srv.SeedENI(tc.eni)
		if got, _, _ := strings.Cut(fmt.Sprint(err), ":"); got != tc.code { // seeding errors read "Code: message"
			t.Errorf("seed %+v: %q (%v), want %q", tc.eni, got, err, tc.code)
		}
	}
	_, err := e.srv.SeedInstance(fakeaws.Instance{ID: "i-0000000000000000b", PrivateIP: "10.0.0.20", PrimaryENIID: "eni-second"})
	if got, _, _ := strings.Cut(fmt.Sprint(err), ":"); got != "InvalidNetworkInterface.InUse" {
		t.Errorf("an instance whose primary ENI is attached elsewhere: %v", err)
	}
	// Re-seeding an attached ENI in place (more secondary IPs) is allowed, and a snapshot keeps attachments.
	must[fakeaws.ENI](t)(e.srv.SeedENI(fakeaws.ENI{ID: "eni-second", InstanceID: "i-0000000000000000a", DeviceIndex: 2, PrivateIPs: []string{"10.0.0.12", "10.0.4.3", "10.0.4.4"}}))
	snap := must[*fakeaws.Snapshot](t)(e.srv.Snapshot())
	c := newEnv(t, fakeaws.Options{From: snap})
	out := must[*ec2.DescribeInstancesOutput](t)(c.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{"i-0000000000000000a"}}))
	if n := out.Reservations[0].Instances[0].NetworkInterfaces; len(n) != 3 || len(n[2].PrivateIpAddresses) != 3 {
		t.Fatalf("snapshot's network interfaces %+v", n)
	}
}

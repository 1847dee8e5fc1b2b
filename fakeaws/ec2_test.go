package fakeaws_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func tcp(port int32, cidr string) ec2types.IpPermission {
	return ec2types.IpPermission{IpProtocol: aws.String("tcp"), FromPort: aws.Int32(port), ToPort: aws.Int32(port),
		IpRanges: []ec2types.IpRange{{CidrIp: aws.String(cidr)}}}
}

func TestSecurityGroupLifecycle(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	created := must[*ec2.CreateSecurityGroupOutput](t)(e.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String("pods"), Description: aws.String("pod sg"), VpcId: aws.String(e.srv.DefaultVPCID()),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup, Tags: []ec2types.Tag{{Key: aws.String("team"), Value: aws.String("x")}}}},
	}))
	sgID := *created.GroupId
	_, err := e.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("pods"), Description: aws.String("d")})
	wantCode(t, err, "InvalidGroup.Duplicate")
	_, err = e.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String("x"), Description: aws.String("d"), VpcId: aws.String("vpc-nope")})
	wantCode(t, err, "InvalidVpcID.NotFound")

	lb := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("lb", "load balancer", ""))
	auth := must[*ec2.AuthorizeSecurityGroupIngressOutput](t)(e.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: aws.String(sgID),
		IpPermissions: []ec2types.IpPermission{tcp(8080, "10.0.0.0/16"), {IpProtocol: aws.String("tcp"), FromPort: aws.Int32(9000), ToPort: aws.Int32(9001),
			UserIdGroupPairs: []ec2types.UserIdGroupPair{{GroupId: aws.String(lb.ID)}}}},
	}))
	if !*auth.Return || len(auth.SecurityGroupRules) != 2 {
		t.Fatalf("authorize: %+v", auth)
	}
	_, err = e.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(sgID), IpPermissions: []ec2types.IpPermission{tcp(8080, "10.0.0.0/16")}})
	wantCode(t, err, "InvalidPermission.Duplicate")
	_, err = e.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String("sg-00000000000000000"), IpPermissions: []ec2types.IpPermission{tcp(1, "10.0.0.0/16")}})
	wantCode(t, err, "InvalidGroup.NotFound")
	_, err = e.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(sgID), IpPermissions: []ec2types.IpPermission{tcp(1, "not-a-cidr")}})
	wantCode(t, err, "InvalidParameterValue")

	desc := must[*ec2.DescribeSecurityGroupsOutput](t)(e.ec2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{sgID}}))
	sg := desc.SecurityGroups[0]
	if *sg.GroupName != "pods" || len(sg.IpPermissions) != 2 || *sg.IpPermissions[0].IpRanges[0].CidrIp != "10.0.0.0/16" ||
		*sg.IpPermissions[1].UserIdGroupPairs[0].GroupId != lb.ID || len(sg.IpPermissionsEgress) != 1 || *sg.Tags[0].Key != "team" {
		t.Fatalf("describe: %+v", sg)
	}
	// Filters: tag:, vpc-id, group-name; unknown filter.
	byTag := must[*ec2.DescribeSecurityGroupsOutput](t)(e.ec2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:team"), Values: []string{"x"}}, {Name: aws.String("vpc-id"), Values: []string{e.srv.DefaultVPCID()}}}}))
	if len(byTag.SecurityGroups) != 1 || *byTag.SecurityGroups[0].GroupId != sgID {
		t.Fatalf("tag filter: %+v", byTag.SecurityGroups)
	}
	_, err = e.ec2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{{Name: aws.String("bogus"), Values: []string{"x"}}}})
	wantCode(t, err, "InvalidParameterValue")
	_, err = e.ec2.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-0000000000000000f"}})
	wantCode(t, err, "InvalidGroup.NotFound")

	rev := must[*ec2.RevokeSecurityGroupIngressOutput](t)(e.ec2.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{
		GroupId: aws.String(sgID), IpPermissions: []ec2types.IpPermission{tcp(8080, "10.0.0.0/16"), tcp(1234, "10.0.0.0/16")}}))
	if !*rev.Return || len(rev.UnknownIpPermissions) != 1 || *rev.UnknownIpPermissions[0].FromPort != 1234 {
		t.Fatalf("revoke: %+v", rev)
	}
	_, err = e.ec2.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(sgID), IpPermissions: []ec2types.IpPermission{tcp(8080, "10.0.0.0/16")}})
	wantCode(t, err, "InvalidPermission.NotFound")
	state := must[fakeaws.SecurityGroup](t)(e.srv.SecurityGroup(sgID))
	if len(state.Ingress) != 1 || state.Ingress[0].SourceGroupID != lb.ID {
		t.Fatalf("state after revoke: %+v", state.Ingress)
	}
	// lb is referenced by a rule of pods: DependencyViolation until pods is gone.
	_, err = e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(lb.ID)})
	wantCode(t, err, "DependencyViolation")
	must[*ec2.DeleteSecurityGroupOutput](t)(e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(sgID)}))
	must[*ec2.DeleteSecurityGroupOutput](t)(e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(lb.ID)}))
	_, err = e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(sgID)})
	wantCode(t, err, "InvalidGroup.NotFound")
	_, err = e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(sgID), DryRun: aws.Bool(true)})
	wantCode(t, err, "DryRunOperation")
}

func TestRulesLimit(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxRulesPerSecurityGroup: 2})
	sg := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("g", "d", ""))
	_, err := e.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(sg.ID),
		IpPermissions: []ec2types.IpPermission{tcp(1, "10.0.0.0/8"), tcp(2, "10.0.0.0/8"), tcp(3, "10.0.0.0/8")}})
	wantCode(t, err, "RulesPerSecurityGroupLimitExceeded")
}

func TestDescribeInstancesAndENIs(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	sg := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("nodes", "d", ""))
	for i := range 7 {
		must[fakeaws.Instance](t)(e.srv.SeedInstance(fakeaws.Instance{ID: fmt.Sprintf("i-%017d", i), PrivateIP: fmt.Sprintf("10.0.3.%d", i+1),
			SubnetID: "subnet-1", AvailabilityZone: "us-west-2b", SecurityGroupIDs: []string{sg.ID}}))
	}
	must[fakeaws.ENI](t)(e.srv.SeedENI(fakeaws.ENI{ID: "eni-pod1", PrivateIPs: []string{"10.0.4.1", "10.0.4.2"}, SecurityGroupIDs: []string{sg.ID}, AvailabilityZone: "us-west-2c"}))

	var ids []string
	p := ec2.NewDescribeInstancesPaginator(e.ec2, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5)})
	pages := 0
	for p.HasMorePages() {
		out := must[*ec2.DescribeInstancesOutput](t)(p.NextPage(ctx))
		pages++
		for _, r := range out.Reservations {
			for _, in := range r.Instances {
				ids = append(ids, *in.InstanceId)
				if *in.Placement.AvailabilityZone != "us-west-2b" || *in.SecurityGroups[0].GroupId != sg.ID || in.State.Name != ec2types.InstanceStateNameRunning ||
					*in.NetworkInterfaces[0].PrivateIpAddress != *in.PrivateIpAddress {
					t.Fatalf("instance %+v", in)
				}
			}
		}
	}
	if pages != 2 || len(ids) != 7 {
		t.Fatalf("pages=%d ids=%v", pages, ids)
	}
	one := must[*ec2.DescribeInstancesOutput](t)(e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{ids[3]}}))
	if len(one.Reservations) != 1 || *one.Reservations[0].Instances[0].InstanceId != ids[3] {
		t.Fatal("by id")
	}
	_, err := e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{"i-00000000000000099"}})
	wantCode(t, err, "InvalidInstanceID.NotFound")
	_, err = e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{ids[0]}, MaxResults: aws.Int32(5)})
	wantCode(t, err, "InvalidParameterCombination")
	_, err = e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(2)})
	wantCode(t, err, "InvalidParameterValue")
	_, err = e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{NextToken: aws.String("%%%")})
	wantCode(t, err, "InvalidParameterValue")

	enis := must[*ec2.DescribeNetworkInterfacesOutput](t)(e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{
		Filters: []ec2types.Filter{{Name: aws.String("addresses.private-ip-address"), Values: []string{"10.0.4.2"}}}}))
	if len(enis.NetworkInterfaces) != 1 || *enis.NetworkInterfaces[0].NetworkInterfaceId != "eni-pod1" || len(enis.NetworkInterfaces[0].PrivateIpAddresses) != 2 ||
		*enis.NetworkInterfaces[0].Groups[0].GroupName != "nodes" {
		t.Fatalf("eni filter: %+v", enis.NetworkInterfaces)
	}
	var count int
	ep := ec2.NewDescribeNetworkInterfacesPaginator(e.ec2, &ec2.DescribeNetworkInterfacesInput{MaxResults: aws.Int32(5)})
	for ep.HasMorePages() {
		count += len(must[*ec2.DescribeNetworkInterfacesOutput](t)(ep.NextPage(ctx)).NetworkInterfaces)
	}
	if count != 8 { // 7 primary ENIs + the pod ENI
		t.Fatalf("eni count %d", count)
	}
	_, err = e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-missing"}})
	wantCode(t, err, "InvalidNetworkInterfaceID.NotFound")
	// SG still in use by ENIs.
	_, err = e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(sg.ID)})
	wantCode(t, err, "DependencyViolation")
}

func TestDescribeVpcsAndTags(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	vpc := must[fakeaws.VPC](t)(e.srv.SeedVPC(fakeaws.VPC{CIDRs: []string{"192.168.0.0/16", "100.64.0.0/16"}}))
	out := must[*ec2.DescribeVpcsOutput](t)(e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{vpc.ID}}))
	v := out.Vpcs[0]
	if *v.CidrBlock != "192.168.0.0/16" || len(v.CidrBlockAssociationSet) != 2 || v.CidrBlockAssociationSet[1].CidrBlockState.State != ec2types.VpcCidrBlockStateCodeAssociated {
		t.Fatalf("vpc %+v", v)
	}
	def := must[*ec2.DescribeVpcsOutput](t)(e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{{Name: aws.String("is-default"), Values: []string{"true"}}}}))
	if len(def.Vpcs) != 1 || *def.Vpcs[0].CidrBlock != "10.0.0.0/16" || !*def.Vpcs[0].IsDefault {
		t.Fatalf("default vpc %+v", def.Vpcs)
	}
	_, err := e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{"vpc-nope"}})
	wantCode(t, err, "InvalidVpcID.NotFound")

	must[*ec2.CreateTagsOutput](t)(e.ec2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{vpc.ID}, Tags: []ec2types.Tag{{Key: aws.String("env"), Value: aws.String("sim")}}}))
	tagged := must[*ec2.DescribeVpcsOutput](t)(e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{Filters: []ec2types.Filter{{Name: aws.String("tag:env"), Values: []string{"sim"}}}}))
	if len(tagged.Vpcs) != 1 || *tagged.Vpcs[0].VpcId != vpc.ID {
		t.Fatalf("tagged %+v", tagged.Vpcs)
	}
	_, err = e.ec2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{"sg-0000000000000000a"}, Tags: []ec2types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}})
	wantCode(t, err, "InvalidGroup.NotFound")
	_, err = e.ec2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{"i-00000000000000001"}, Tags: []ec2types.Tag{{Key: aws.String("a"), Value: aws.String("b")}}})
	wantCode(t, err, "InvalidInstanceID.NotFound")
}

// TestENIIndexedFilters: filters answered from the store's indexes return what a scan returns: secondary IPs
// match addresses.private-ip-address but not private-ip-address, further filters still apply, wildcards fall
// back to the scan, and an unknown filter name still fails.
func TestENIIndexedFilters(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	sg := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("pods", "d", ""))
	must[fakeaws.ENI](t)(e.srv.SeedENI(fakeaws.ENI{ID: "eni-b", PrivateIPs: []string{"10.0.4.1", "10.0.4.2"}, SecurityGroupIDs: []string{sg.ID}}))
	must[fakeaws.ENI](t)(e.srv.SeedENI(fakeaws.ENI{ID: "eni-a", PrivateIPs: []string{"10.0.4.2"}}))
	f := func(name string, values ...string) ec2types.Filter {
		return ec2types.Filter{Name: aws.String(name), Values: values}
	}
	for _, tc := range []struct {
		filters []ec2types.Filter
		want    []string
	}{
		{[]ec2types.Filter{f("addresses.private-ip-address", "10.0.4.2", "10.0.4.1")}, []string{"eni-a", "eni-b"}},
		{[]ec2types.Filter{f("private-ip-address", "10.0.4.2")}, []string{"eni-a"}},
		{[]ec2types.Filter{f("addresses.private-ip-address", "10.0.4.2"), f("group-id", sg.ID)}, []string{"eni-b"}},
		{[]ec2types.Filter{f("group-name", "pods"), f("addresses.private-ip-address", "10.0.4.2")}, []string{"eni-b"}},
		{[]ec2types.Filter{f("addresses.private-ip-address", "10.0.4.*")}, []string{"eni-a", "eni-b"}},
		{[]ec2types.Filter{f("network-interface-id", "eni-b", "eni-missing")}, []string{"eni-b"}},
		{[]ec2types.Filter{f("addresses.private-ip-address", "10.9.9.9")}, nil},
	} {
		out := must[*ec2.DescribeNetworkInterfacesOutput](t)(e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{Filters: tc.filters}))
		var got []string
		for _, n := range out.NetworkInterfaces {
			got = append(got, aws.ToString(n.NetworkInterfaceId))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s=%v...: got %v, want %v", *tc.filters[0].Name, tc.filters[0].Values, got, tc.want)
		}
	}
	_, err := e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{
		f("bogus", "x"), f("addresses.private-ip-address", "10.9.9.9")}})
	wantCode(t, err, "InvalidParameterValue")
	_, err = e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-missing", "bad"}})
	wantCode(t, err, "InvalidNetworkInterfaceID.NotFound")
	_, err = e.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: []string{"eni-a", "bad", "eni-missing"}})
	wantCode(t, err, "InvalidNetworkInterfaceID.Malformed")
}

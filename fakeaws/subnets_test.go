package fakeaws_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func subnetIDsOf(out *ec2.DescribeSubnetsOutput) []string {
	ids := make([]string, 0, len(out.Subnets))
	for _, s := range out.Subnets {
		ids = append(ids, aws.ToString(s.SubnetId))
	}
	return ids
}

func TestDescribeSubnets(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	all := must[*ec2.DescribeSubnetsOutput](t)(e.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{}))
	var zones []string
	for _, s := range all.Subnets {
		zones = append(zones, aws.ToString(s.AvailabilityZone))
		if aws.ToString(s.VpcId) != e.srv.DefaultVPCID() || !aws.ToBool(s.DefaultForAz) || aws.ToInt32(s.AvailableIpAddressCount) != 8187 ||
			!strings.HasPrefix(aws.ToString(s.AvailabilityZoneId), "usw2-az") || s.State != ec2types.SubnetStateAvailable || len(s.Tags) != 2 {
			t.Fatalf("default subnet %+v", s)
		}
	}
	slices.Sort(zones)
	if !slices.Equal(zones, []string{"us-west-2a", "us-west-2b", "us-west-2c"}) {
		t.Fatalf("zones %v", zones)
	}
	other := must[fakeaws.VPC](t)(e.srv.SeedVPC(fakeaws.VPC{CIDRs: []string{"192.168.0.0/16"}}))
	private := must[fakeaws.Subnet](t)(e.srv.SeedSubnet(fakeaws.Subnet{VPCID: other.ID, CIDR: "192.168.1.0/24", AvailabilityZone: "us-west-2a",
		Tags: []fakeaws.Tag{{Key: fakeaws.TagRoleInternalELB, Value: "1"}}}))
	_, err := e.srv.SeedSubnet(fakeaws.Subnet{VPCID: other.ID, CIDR: "10.9.0.0/24", AvailabilityZone: "us-west-2a"})
	if err == nil {
		t.Fatal("seeded a subnet outside its VPC's CIDR")
	}
	filter := func(fs ...ec2types.Filter) []string {
		return subnetIDsOf(must[*ec2.DescribeSubnetsOutput](t)(e.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: fs})))
	}
	f := func(name string, values ...string) ec2types.Filter {
		return ec2types.Filter{Name: aws.String(name), Values: values}
	}
	if got := filter(f("vpc-id", other.ID)); !slices.Equal(got, []string{private.ID}) {
		t.Fatalf("vpc-id: %v", got)
	}
	if got := filter(f("tag-key", fakeaws.TagRoleInternalELB)); len(got) != 4 {
		t.Fatalf("tag-key: %v", got)
	}
	if got := filter(f("tag:"+fakeaws.TagRoleELB, "1"), f("vpc-id", other.ID)); len(got) != 0 {
		t.Fatalf("tag and vpc: %v", got)
	}
	if got := filter(f("subnet-id", private.ID, "subnet-none")); !slices.Equal(got, []string{private.ID}) {
		t.Fatalf("subnet-id: %v", got)
	}
	byID := must[*ec2.DescribeSubnetsOutput](t)(e.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{private.ID}}))
	if got := subnetIDsOf(byID); !slices.Equal(got, []string{private.ID}) {
		t.Fatalf("by ID: %v", got)
	}
	_, err = e.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{SubnetIds: []string{"subnet-0000000000000000"}})
	wantCode(t, err, "InvalidSubnetID.NotFound")
	_, err = e.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{f("no-such-filter", "x")}})
	wantCode(t, err, "InvalidParameterValue")
	// Paging, and CreateTags on a subnet.
	page := must[*ec2.DescribeSubnetsOutput](t)(e.ec2.DescribeSubnets(ctx, &ec2.DescribeSubnetsInput{MaxResults: aws.Int32(5)}))
	if len(page.Subnets) != 4 || page.NextToken != nil {
		t.Fatalf("one page of 4: %d, next %v", len(page.Subnets), page.NextToken)
	}
	must[*ec2.CreateTagsOutput](t)(e.ec2.CreateTags(ctx, &ec2.CreateTagsInput{Resources: []string{private.ID}, Tags: []ec2types.Tag{{Key: aws.String("team"), Value: aws.String("a")}}}))
	if got := filter(f("tag:team", "a")); !slices.Equal(got, []string{private.ID}) {
		t.Fatalf("tagged subnet: %v", got)
	}
	n := e.srv.Recorder().Len()
	filter(f("vpc-id", other.ID))
	if c := e.srv.Recorder().Since(n)[0]; c.Operation != "DescribeSubnets" || c.Bucket != fakeaws.CategoryEC2Describe+"/DescribeSubnets" || !slices.Equal(c.Filters, []string{"vpc-id"}) {
		t.Fatalf("recorded %+v", c)
	}
}

// The region's zones are those of the default VPC's subnets and of every seeded subnet, with AWS's
// zone IDs; names, IDs and filters select them, an unknown name is AWS's error.
func TestDescribeAvailabilityZones(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	must[fakeaws.Subnet](t)(e.srv.SeedSubnet(fakeaws.Subnet{CIDR: "10.0.200.0/24", AvailabilityZone: "us-west-2d"}))
	zonesOf := func(in *ec2.DescribeAvailabilityZonesInput) []string {
		t.Helper()
		out := must[*ec2.DescribeAvailabilityZonesOutput](t)(e.ec2.DescribeAvailabilityZones(ctx, in))
		var got []string
		for _, z := range out.AvailabilityZones {
			if z.State != ec2types.AvailabilityZoneStateAvailable || aws.ToString(z.ZoneType) != "availability-zone" || aws.ToString(z.RegionName) != "us-west-2" {
				t.Fatalf("zone %+v", z)
			}
			got = append(got, aws.ToString(z.ZoneName)+"="+aws.ToString(z.ZoneId))
		}
		return got
	}
	all := []string{"us-west-2a=usw2-az1", "us-west-2b=usw2-az2", "us-west-2c=usw2-az3", "us-west-2d=usw2-az4"}
	if got := zonesOf(&ec2.DescribeAvailabilityZonesInput{}); !slices.Equal(got, all) {
		t.Fatalf("zones %v, want %v", got, all)
	}
	if got := zonesOf(&ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-west-2b"}}); !slices.Equal(got, all[1:2]) {
		t.Fatalf("by name: %v", got)
	}
	if got := zonesOf(&ec2.DescribeAvailabilityZonesInput{ZoneIds: []string{"usw2-az3"}}); !slices.Equal(got, all[2:3]) {
		t.Fatalf("by ID: %v", got)
	}
	byFilter := &ec2.DescribeAvailabilityZonesInput{Filters: []ec2types.Filter{{Name: aws.String("zone-name"), Values: []string{"us-west-2a", "us-west-2d"}}}}
	if got := zonesOf(byFilter); !slices.Equal(got, []string{all[0], all[3]}) {
		t.Fatalf("by filter: %v", got)
	}
	_, err := e.ec2.DescribeAvailabilityZones(ctx, &ec2.DescribeAvailabilityZonesInput{ZoneNames: []string{"us-west-2z"}})
	wantCode(t, err, "InvalidParameterValue")
}

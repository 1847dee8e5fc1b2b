package fakeaws_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// The request bucket of DescribeInstanceTypes (non-mutating: 100 tokens, 20 a second) and the resource
// bucket of RunInstances (1,000 instances, 2 a second) each answer RequestLimitExceeded when empty and
// refill in scenario time; CreateFleet has no resource bucket.
func TestEC2CapacityThrottling(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileAWSDocumented})
	describe := func() error {
		_, err := e.ec2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.large"}})
		return err
	}
	for i := range 100 {
		if err := describe(); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	err := describe()
	wantCode(t, err, "RequestLimitExceeded")
	if !isThrottle(err) {
		t.Fatalf("not a throttle to the SDK: %v", err)
	}
	e.clock.Step(time.Second)
	for i := range 20 {
		if err := describe(); err != nil {
			t.Fatalf("after a second's refill, call %d: %v", i, err)
		}
	}
	wantCode(t, describe(), "RequestLimitExceeded")

	lt := launchTemplate(t, e, "throttle")
	run := func(n int32) error {
		_, err := e.ec2.RunInstances(ctx, &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(n), InstanceType: "t3.micro",
			LaunchTemplate: &ec2types.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt)}})
		return err
	}
	for i := range 4 {
		if err := run(250); err != nil {
			t.Fatalf("launch %d of 250: %v", i, err)
		}
	}
	wantCode(t, run(1), "RequestLimitExceeded")
	e.clock.Step(time.Second)
	if err := run(2); err != nil {
		t.Fatalf("two instances after a second: %v", err)
	}
	wantCode(t, run(1), "RequestLimitExceeded")
	// AWS's table gives CreateFleet no resource bucket: an instant fleet launches while RunInstances' is empty.
	fleet, err := e.ec2.CreateFleet(ctx, &ec2.CreateFleetInput{Type: ec2types.FleetTypeInstant,
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateId: aws.String(lt), Version: aws.String("$Latest")},
			Overrides:                   []ec2types.FleetLaunchTemplateOverridesRequest{{InstanceType: "t3.micro"}}}},
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(3), DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeOnDemand}})
	if err != nil || len(fleet.Instances) != 1 || len(fleet.Instances[0].InstanceIds) != 3 {
		t.Fatalf("instant fleet of 3 with RunInstances' resource bucket empty: %+v, %v", fleet, err)
	}
	buckets := map[string]bool{}
	for _, b := range e.srv.Buckets() {
		buckets[b.Key] = true
	}
	if !buckets[fakeaws.BucketEC2RunInstancesResource] || !buckets[fakeaws.CategoryEC2RunInstances] ||
		!buckets[fakeaws.CategoryEC2ResourceIntensive+"/CreateFleet"] {
		t.Fatalf("buckets: %v", buckets)
	}
}

package fakeaws_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestDescribeInstanceTypesPaginates(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	p := ec2.NewDescribeInstanceTypesPaginator(e.ec2, &ec2.DescribeInstanceTypesInput{MaxResults: aws.Int32(20),
		Filters: []ec2types.Filter{{Name: aws.String("supported-virtualization-type"), Values: []string{"hvm"}},
			{Name: aws.String("processor-info.supported-architecture"), Values: []string{"x86_64", "arm64"}}}})
	seen, pages := map[string]ec2types.InstanceTypeInfo{}, 0
	for p.HasMorePages() {
		out := must[*ec2.DescribeInstanceTypesOutput](t)(p.NextPage(ctx))
		pages++
		for _, it := range out.InstanceTypes {
			seen[string(it.InstanceType)] = it
		}
	}
	if len(seen) < 50 || len(seen) != len(fakeaws.InstanceTypes()) || pages < 3 {
		t.Fatalf("%d types in %d pages, catalogue %d", len(seen), pages, len(fakeaws.InstanceTypes()))
	}
	m5 := seen["m5.large"]
	if *m5.VCpuInfo.DefaultVCpus != 2 || *m5.MemoryInfo.SizeInMiB != 8192 || *m5.NetworkInfo.MaximumNetworkInterfaces != 3 ||
		*m5.NetworkInfo.Ipv4AddressesPerInterface != 10 || m5.ProcessorInfo.SupportedArchitectures[0] != "x86_64" ||
		len(m5.NetworkInfo.NetworkCards) != 1 || m5.Hypervisor != "nitro" {
		t.Fatalf("m5.large: %+v", m5)
	}
	arm := must[*ec2.DescribeInstanceTypesOutput](t)(e.ec2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{
		Filters: []ec2types.Filter{{Name: aws.String("processor-info.supported-architecture"), Values: []string{"arm64"}}}}))
	for _, it := range arm.InstanceTypes {
		if it.ProcessorInfo.SupportedArchitectures[0] != "arm64" {
			t.Fatalf("arm64 filter let %s through", it.InstanceType)
		}
	}
	_, err := e.ec2.DescribeInstanceTypes(ctx, &ec2.DescribeInstanceTypesInput{InstanceTypes: []ec2types.InstanceType{"m5.huge"}})
	wantCode(t, err, "InvalidInstanceType")
	offs := must[*ec2.DescribeInstanceTypeOfferingsOutput](t)(e.ec2.DescribeInstanceTypeOfferings(ctx, &ec2.DescribeInstanceTypeOfferingsInput{
		LocationType: ec2types.LocationTypeAvailabilityZone, Filters: []ec2types.Filter{{Name: aws.String("instance-type"), Values: []string{"c6g.large"}}}}))
	if len(offs.InstanceTypeOfferings) != 3 || *offs.InstanceTypeOfferings[0].Location != "us-west-2a" {
		t.Fatalf("offerings: %+v", offs.InstanceTypeOfferings)
	}
}

// launchTemplate creates a template of the first seeded x86_64 image with user data.
func launchTemplate(t *testing.T, e *env, name string) string {
	t.Helper()
	img := must[*ec2.DescribeImagesOutput](t)(e.ec2.DescribeImages(ctx, &ec2.DescribeImagesInput{Owners: []string{"amazon"},
		Filters: []ec2types.Filter{{Name: aws.String("architecture"), Values: []string{"x86_64"}}}}))
	if len(img.Images) == 0 {
		t.Fatal("no x86_64 image")
	}
	out := must[*ec2.CreateLaunchTemplateOutput](t)(e.ec2.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{
		LaunchTemplateName: aws.String(name),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{ImageId: img.Images[0].ImageId,
			UserData:        aws.String(base64.StdEncoding.EncodeToString([]byte("node-labels=a=b"))),
			MetadataOptions: &ec2types.LaunchTemplateInstanceMetadataOptionsRequest{HttpTokens: ec2types.LaunchTemplateHttpTokensStateRequired}},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeLaunchTemplate,
			Tags: []ec2types.Tag{{Key: aws.String("karpenter.k8s.aws/cluster"), Value: aws.String("c1")}}}},
	}))
	return *out.LaunchTemplate.LaunchTemplateId
}

func TestLaunchTemplates(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	id := launchTemplate(t, e, "karpenter.k8s.aws/abc")
	_, err := e.ec2.CreateLaunchTemplate(ctx, &ec2.CreateLaunchTemplateInput{LaunchTemplateName: aws.String("karpenter.k8s.aws/abc"),
		LaunchTemplateData: &ec2types.RequestLaunchTemplateData{InstanceType: "m5.large"}})
	wantCode(t, err, "InvalidLaunchTemplateName.AlreadyExistsException")
	byTag := must[*ec2.DescribeLaunchTemplatesOutput](t)(e.ec2.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{
		Filters: []ec2types.Filter{{Name: aws.String("tag:karpenter.k8s.aws/cluster"), Values: []string{"c1"}}}}))
	if len(byTag.LaunchTemplates) != 1 || *byTag.LaunchTemplates[0].LaunchTemplateId != id || *byTag.LaunchTemplates[0].LatestVersionNumber != 1 {
		t.Fatalf("by tag: %+v", byTag.LaunchTemplates)
	}
	_, err = e.ec2.DescribeLaunchTemplates(ctx, &ec2.DescribeLaunchTemplatesInput{LaunchTemplateNames: []string{"nope"}})
	wantCode(t, err, "InvalidLaunchTemplateName.NotFoundException")
	must[*ec2.DeleteLaunchTemplateOutput](t)(e.ec2.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(id)}))
	_, err = e.ec2.DeleteLaunchTemplate(ctx, &ec2.DeleteLaunchTemplateInput{LaunchTemplateId: aws.String(id)})
	wantCode(t, err, "InvalidLaunchTemplateId.NotFound")
}

func TestCreateFleetSkipsInsufficientCapacity(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lt := launchTemplate(t, e, "fleet")
	must[fakeaws.CapacityError](t)(e.srv.SetCapacityError(fakeaws.CapacityError{InstanceType: "m5.large", Zone: "us-west-2a"}))
	ov := func(typ ec2types.InstanceType, zone string) ec2types.FleetLaunchTemplateOverridesRequest {
		return ec2types.FleetLaunchTemplateOverridesRequest{InstanceType: typ, AvailabilityZone: aws.String(zone)}
	}
	out := must[*ec2.CreateFleetOutput](t)(e.ec2.CreateFleet(ctx, &ec2.CreateFleetInput{Type: ec2types.FleetTypeInstant,
		LaunchTemplateConfigs: []ec2types.FleetLaunchTemplateConfigRequest{{
			LaunchTemplateSpecification: &ec2types.FleetLaunchTemplateSpecificationRequest{LaunchTemplateId: aws.String(lt), Version: aws.String("$Latest")},
			Overrides:                   []ec2types.FleetLaunchTemplateOverridesRequest{ov("m5.large", "us-west-2a"), ov("m5.xlarge", "us-west-2b"), ov("c5.large", "us-west-2c")}}},
		TargetCapacitySpecification: &ec2types.TargetCapacitySpecificationRequest{TotalTargetCapacity: aws.Int32(2), DefaultTargetCapacityType: ec2types.DefaultTargetCapacityTypeOnDemand},
		OnDemandOptions:             &ec2types.OnDemandOptionsRequest{AllocationStrategy: ec2types.FleetOnDemandAllocationStrategyLowestPrice},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance,
			Tags: []ec2types.Tag{{Key: aws.String("karpenter.sh/nodepool"), Value: aws.String("default")}}}},
	}))
	if len(out.Errors) != 1 || *out.Errors[0].ErrorCode != "InsufficientInstanceCapacity" || out.Errors[0].LaunchTemplateAndOverrides.Overrides.InstanceType != "m5.large" {
		t.Fatalf("errors: %+v", out.Errors)
	}
	// c5.large is the cheapest pool with capacity (0.085 $/h against m5.xlarge's 0.192).
	if len(out.Instances) != 1 || out.Instances[0].InstanceType != "c5.large" || len(out.Instances[0].InstanceIds) != 2 || *out.FleetId == "" {
		t.Fatalf("instances: %+v", out.Instances)
	}
	got := e.srv.Instances()
	var launched []fakeaws.Instance
	for _, in := range got {
		if in.LaunchTemplateID == lt {
			launched = append(launched, in)
		}
	}
	if len(launched) != 2 || launched[0].State != "pending" || launched[0].UserData == "" || launched[0].AvailabilityZone != "us-west-2c" ||
		launched[0].PrivateIP == "" || launched[0].PrimaryENIID == "" {
		t.Fatalf("launched: %+v", launched)
	}
}

func TestRunAndTerminateInstancesLifecycle(t *testing.T) {
	e := newEnv(t, fakeaws.Options{InstanceBootDelay: 10 * time.Second})
	lt := launchTemplate(t, e, "run")
	run := must[*ec2.RunInstancesOutput](t)(e.ec2.RunInstances(ctx, &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(6),
		InstanceType: "m6g.large", LaunchTemplate: &ec2types.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt)},
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeInstance, Tags: []ec2types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}}}))
	if len(run.Instances) != 6 || run.Instances[0].State.Name != ec2types.InstanceStateNamePending || run.Instances[0].InstanceType != "m6g.large" {
		t.Fatalf("run: %+v", run.Instances)
	}
	ids := []string{*run.Instances[0].InstanceId, *run.Instances[1].InstanceId}
	state := func(filter string) int {
		n := 0
		p := ec2.NewDescribeInstancesPaginator(e.ec2, &ec2.DescribeInstancesInput{MaxResults: aws.Int32(5), Filters: []ec2types.Filter{
			{Name: aws.String("instance-state-name"), Values: []string{filter}}, {Name: aws.String("tag:k"), Values: []string{"v"}},
			{Name: aws.String("instance-type"), Values: []string{"m6g.large"}}}})
		for p.HasMorePages() {
			for _, r := range must[*ec2.DescribeInstancesOutput](t)(p.NextPage(ctx)).Reservations {
				n += len(r.Instances)
			}
		}
		return n
	}
	if state("pending") != 6 || state("running") != 0 {
		t.Fatal("not pending after launch")
	}
	e.clock.Step(10 * time.Second)
	if state("running") != 6 {
		t.Fatal("not running after the boot delay")
	}
	term := must[*ec2.TerminateInstancesOutput](t)(e.ec2.TerminateInstances(ctx, &ec2.TerminateInstancesInput{InstanceIds: ids}))
	if len(term.TerminatingInstances) != 2 || term.TerminatingInstances[0].PreviousState.Name != "running" || term.TerminatingInstances[0].CurrentState.Name != "shutting-down" {
		t.Fatalf("terminate: %+v", term.TerminatingInstances)
	}
	e.clock.Step(30 * time.Second)
	d := must[*ec2.DescribeInstancesOutput](t)(e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: ids}))
	in := d.Reservations[0].Instances[0]
	if in.State.Name != "terminated" || *in.State.Code != 48 || *in.StateReason.Code != "Client.UserInitiatedShutdown" {
		t.Fatalf("after shutdown: %+v", in.State)
	}
	e.clock.Step(time.Hour)
	_, err := e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: ids})
	wantCode(t, err, "InvalidInstanceID.NotFound")
	must[fakeaws.CapacityError](t)(e.srv.SetCapacityError(fakeaws.CapacityError{InstanceType: "m6g.large"}))
	_, err = e.ec2.RunInstances(ctx, &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(1), InstanceType: "m6g.large",
		LaunchTemplate: &ec2types.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt)}})
	wantCode(t, err, "InsufficientInstanceCapacity")
}

func TestCapacityErrorAdminHTTP(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	lt := launchTemplate(t, e, "admin")
	if code, body := adminDo(t, e, "POST", "/_restartsim/capacity-error", `{"instanceType":"r6i.large","zone":"us-west-2a","code":"InsufficientInstanceCapacity"}`, true); code != 200 {
		t.Fatalf("capacity-error: %d %s", code, body)
	}
	if code, _ := adminDo(t, e, "POST", "/_restartsim/capacity-error", `{"instanceType":"r6i.gigantic"}`, true); code != 400 {
		t.Fatalf("unknown type accepted: %d", code)
	}
	run := func(zone string) error {
		_, err := e.ec2.RunInstances(ctx, &ec2.RunInstancesInput{MinCount: aws.Int32(1), MaxCount: aws.Int32(1), InstanceType: "r6i.large",
			Placement: &ec2types.Placement{AvailabilityZone: aws.String(zone)}, LaunchTemplate: &ec2types.LaunchTemplateSpecification{LaunchTemplateId: aws.String(lt)}})
		return err
	}
	wantCode(t, run("us-west-2a"), "InsufficientInstanceCapacity")
	if err := run("us-west-2b"); err != nil {
		t.Fatalf("another zone: %v", err)
	}
	if code, _ := adminDo(t, e, "POST", "/_restartsim/capacity-error", `{"instanceType":"r6i.large","zone":"us-west-2a","clear":true}`, true); code != 200 {
		t.Fatal("clear refused")
	}
	if err := run("us-west-2a"); err != nil {
		t.Fatalf("after clearing: %v", err)
	}
}

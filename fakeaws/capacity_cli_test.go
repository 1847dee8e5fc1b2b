package fakeaws_test

import (
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestEC2CapacityAWSCLI drives the capacity API with the AWS CLI (botocore's EC2 Query client).
func TestEC2CapacityAWSCLI(t *testing.T) {
	cli := awsCLIOrSkip(t)
	// A clock that stands still: the instances stay pending however long the CLI takes to start.
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited,
		Clock: clocktesting.NewFakeClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	run := awsCLI(t, cli, startServer(t, srv), "ec2", "us-west-2")
	types := run("describe-instance-types", "--instance-types", "m7g.xlarge", "c6i.2xlarge")["InstanceTypes"].([]any)
	if len(types) != 2 {
		t.Fatalf("describe-instance-types: %v", types)
	}
	m7g := types[1].(map[string]any)
	if m7g["InstanceType"] != "m7g.xlarge" || m7g["VCpuInfo"].(map[string]any)["DefaultVCpus"] != 4.0 ||
		m7g["MemoryInfo"].(map[string]any)["SizeInMiB"] != 16384.0 {
		t.Fatalf("m7g.xlarge: %v", m7g)
	}
	image := run("describe-images", "--owners", "amazon", "--filters", "Name=architecture,Values=arm64")["Images"].([]any)[0].(map[string]any)["ImageId"].(string)
	ran := run("run-instances", "--image-id", image, "--instance-type", "m7g.xlarge", "--count", "2",
		"--tag-specifications", "ResourceType=instance,Tags=[{Key=team,Value=cli}]")["Instances"].([]any)
	if len(ran) != 2 || ran[0].(map[string]any)["State"].(map[string]any)["Name"] != "pending" {
		t.Fatalf("run-instances: %v", ran)
	}
	lt := run("create-launch-template", "--launch-template-name", "cli", "--launch-template-data", `{"ImageId":"`+image+`"}`)
	ltID := lt["LaunchTemplate"].(map[string]any)["LaunchTemplateId"].(string)
	fleet := run("create-fleet", "--type", "instant",
		"--launch-template-configs", `[{"LaunchTemplateSpecification":{"LaunchTemplateId":"`+ltID+`","Version":"$Latest"},"Overrides":[{"InstanceType":"c7g.large","AvailabilityZone":"us-west-2b"}]}]`,
		"--target-capacity-specification", "TotalTargetCapacity=1,DefaultTargetCapacityType=spot")
	if ins := fleet["Instances"].([]any); len(ins) != 1 || ins[0].(map[string]any)["Lifecycle"] != "spot" {
		t.Fatalf("create-fleet: %v", fleet)
	}
	res := run("describe-instances", "--filters", "Name=tag:team,Values=cli", "Name=instance-state-name,Values=pending")["Reservations"].([]any)
	if len(res) != 2 {
		t.Fatalf("describe-instances by tag and state: %v", res)
	}
}

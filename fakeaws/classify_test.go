package fakeaws_test

import (
	"testing"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/fakeaws/internal/ec2"
	"github.com/restartsim/restartsim/fakeaws/internal/elbv2"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
	"github.com/restartsim/restartsim/fakeaws/internal/sts"
	"github.com/restartsim/restartsim/fakeaws/internal/throttle"
)

// bucketOf is the documented bucket of every operation fakeaws serves (design.md: ELB registration 20 / 4 per s,
// describe 40 / 10, mutating 20 / 3, CreateLoadBalancer and SetSubnets 10 / 0.2; EC2 per action by category, or by AWS's figures for the action; STS
// 600 per s shared). A new operation fails this test until it is classified here.
var bucketOf = map[string]string{
	"elbv2/RegisterTargets": fakeaws.CategoryELBRegistration, "elbv2/DeregisterTargets": fakeaws.CategoryELBRegistration,
	"elbv2/CreateLoadBalancer": fakeaws.CategoryELBResourceIntensive, "elbv2/SetSubnets": fakeaws.CategoryELBResourceIntensive,

	"elbv2/DescribeTargetGroups": fakeaws.CategoryELBDescribe, "elbv2/DescribeTargetHealth": fakeaws.CategoryELBDescribe,
	"elbv2/DescribeTags": fakeaws.CategoryELBDescribe, "elbv2/DescribeTargetGroupAttributes": fakeaws.CategoryELBDescribe,
	"elbv2/DescribeLoadBalancers": fakeaws.CategoryELBDescribe, "elbv2/DescribeLoadBalancerAttributes": fakeaws.CategoryELBDescribe,
	"elbv2/DescribeListeners": fakeaws.CategoryELBDescribe, "elbv2/DescribeListenerAttributes": fakeaws.CategoryELBDescribe,
	"elbv2/DescribeRules": fakeaws.CategoryELBDescribe, "elbv2/DescribeListenerCertificates": fakeaws.CategoryELBDescribe,

	"elbv2/CreateTargetGroup": fakeaws.CategoryELBMutating, "elbv2/DeleteTargetGroup": fakeaws.CategoryELBMutating,
	"elbv2/ModifyTargetGroup": fakeaws.CategoryELBMutating, "elbv2/ModifyTargetGroupAttributes": fakeaws.CategoryELBMutating,
	"elbv2/AddTags": fakeaws.CategoryELBMutating, "elbv2/RemoveTags": fakeaws.CategoryELBMutating,
	"elbv2/DeleteLoadBalancer": fakeaws.CategoryELBMutating, "elbv2/ModifyLoadBalancerAttributes": fakeaws.CategoryELBMutating,
	"elbv2/CreateListener": fakeaws.CategoryELBMutating, "elbv2/ModifyListener": fakeaws.CategoryELBMutating,
	"elbv2/DeleteListener": fakeaws.CategoryELBMutating, "elbv2/ModifyListenerAttributes": fakeaws.CategoryELBMutating,
	"elbv2/CreateRule": fakeaws.CategoryELBMutating, "elbv2/ModifyRule": fakeaws.CategoryELBMutating,
	"elbv2/DeleteRule": fakeaws.CategoryELBMutating, "elbv2/SetRulePriorities": fakeaws.CategoryELBMutating,
	"elbv2/SetSecurityGroups": fakeaws.CategoryELBMutating, "elbv2/SetIpAddressType": fakeaws.CategoryELBMutating,
	"elbv2/AddListenerCertificates": fakeaws.CategoryELBMutating, "elbv2/RemoveListenerCertificates": fakeaws.CategoryELBMutating,

	"ec2/DescribeInstances": fakeaws.CategoryEC2Describe, "ec2/DescribeNetworkInterfaces": fakeaws.CategoryEC2Describe,
	"ec2/DescribeSecurityGroups": fakeaws.CategoryEC2Describe, "ec2/DescribeVpcs": fakeaws.CategoryEC2Describe,
	"ec2/DescribeSubnets": fakeaws.CategoryEC2Describe, "ec2/DescribeAvailabilityZones": fakeaws.CategoryEC2Describe,
	"ec2/CreateSecurityGroup": fakeaws.CategoryEC2Mutating, "ec2/DeleteSecurityGroup": fakeaws.CategoryEC2Mutating,
	"ec2/CreateTags": fakeaws.CategoryEC2CreateTags,
	"ec2/DeleteTags": fakeaws.CategoryEC2DeleteTags, "ec2/CreateLaunchTemplate": fakeaws.CategoryEC2Mutating,
	"ec2/DeleteLaunchTemplate": fakeaws.CategoryEC2Mutating, "ec2/TerminateInstances": fakeaws.CategoryEC2TerminateInstances,
	"ec2/RunInstances": fakeaws.CategoryEC2RunInstances, "ec2/CreateFleet": fakeaws.CategoryEC2ResourceIntensive,
	"ec2/DescribeInstanceTypes": fakeaws.CategoryEC2Describe, "ec2/DescribeInstanceTypeOfferings": fakeaws.CategoryEC2Describe,
	"ec2/DescribeSpotPriceHistory": fakeaws.CategoryEC2Describe, "ec2/DescribeImages": fakeaws.CategoryEC2Describe,
	"ec2/DescribeLaunchTemplates": fakeaws.CategoryEC2Describe, "ec2/DescribeInstanceStatus": fakeaws.CategoryEC2Describe,
	"ec2/AuthorizeSecurityGroupIngress": fakeaws.CategoryEC2SecurityGroup, "ec2/RevokeSecurityGroupIngress": fakeaws.CategoryEC2SecurityGroup,

	"sts/GetCallerIdentity": fakeaws.CategorySTS,
}

func TestEveryOperationClassified(t *testing.T) {
	st := state.New(state.Config{AccountID: "123456789012", Region: "us-west-2"})
	served := map[string][]string{"elbv2": elbv2.New(st).Operations(), "ec2": ec2.New(st).Operations(),
		"sts": sts.New(st.AccountID(), "AKID").Operations()}
	n := 0
	for svc, ops := range served {
		for _, op := range ops {
			n++
			want, ok := bucketOf[svc+"/"+op]
			if !ok {
				t.Errorf("%s %s is served but not classified", svc, op)
				continue
			}
			if got := throttle.Category(svc, op, false); got != want {
				t.Errorf("%s %s: bucket %s, want %s", svc, op, got, want)
			}
		}
	}
	if n != len(bucketOf) {
		t.Errorf("%d operations served, %d classified: the table names operations no longer served", n, len(bucketOf))
	}
}

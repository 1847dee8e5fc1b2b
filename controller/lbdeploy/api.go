package lbdeploy

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
)

// ELBV2API is the part of the ELBv2 client the deployer uses; *elasticloadbalancingv2.Client satisfies it.
type ELBV2API interface {
	DescribeLoadBalancers(context.Context, *elbv2.DescribeLoadBalancersInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancersOutput, error)
	CreateLoadBalancer(context.Context, *elbv2.CreateLoadBalancerInput, ...func(*elbv2.Options)) (*elbv2.CreateLoadBalancerOutput, error)
	DeleteLoadBalancer(context.Context, *elbv2.DeleteLoadBalancerInput, ...func(*elbv2.Options)) (*elbv2.DeleteLoadBalancerOutput, error)
	SetSubnets(context.Context, *elbv2.SetSubnetsInput, ...func(*elbv2.Options)) (*elbv2.SetSubnetsOutput, error)
	SetSecurityGroups(context.Context, *elbv2.SetSecurityGroupsInput, ...func(*elbv2.Options)) (*elbv2.SetSecurityGroupsOutput, error)
	SetIpAddressType(context.Context, *elbv2.SetIpAddressTypeInput, ...func(*elbv2.Options)) (*elbv2.SetIpAddressTypeOutput, error)
	DescribeLoadBalancerAttributes(context.Context, *elbv2.DescribeLoadBalancerAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeLoadBalancerAttributesOutput, error)
	ModifyLoadBalancerAttributes(context.Context, *elbv2.ModifyLoadBalancerAttributesInput, ...func(*elbv2.Options)) (*elbv2.ModifyLoadBalancerAttributesOutput, error)

	DescribeListeners(context.Context, *elbv2.DescribeListenersInput, ...func(*elbv2.Options)) (*elbv2.DescribeListenersOutput, error)
	CreateListener(context.Context, *elbv2.CreateListenerInput, ...func(*elbv2.Options)) (*elbv2.CreateListenerOutput, error)
	ModifyListener(context.Context, *elbv2.ModifyListenerInput, ...func(*elbv2.Options)) (*elbv2.ModifyListenerOutput, error)
	DeleteListener(context.Context, *elbv2.DeleteListenerInput, ...func(*elbv2.Options)) (*elbv2.DeleteListenerOutput, error)
	DescribeListenerCertificates(context.Context, *elbv2.DescribeListenerCertificatesInput, ...func(*elbv2.Options)) (*elbv2.DescribeListenerCertificatesOutput, error)
	AddListenerCertificates(context.Context, *elbv2.AddListenerCertificatesInput, ...func(*elbv2.Options)) (*elbv2.AddListenerCertificatesOutput, error)
	RemoveListenerCertificates(context.Context, *elbv2.RemoveListenerCertificatesInput, ...func(*elbv2.Options)) (*elbv2.RemoveListenerCertificatesOutput, error)

	DescribeRules(context.Context, *elbv2.DescribeRulesInput, ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error)
	CreateRule(context.Context, *elbv2.CreateRuleInput, ...func(*elbv2.Options)) (*elbv2.CreateRuleOutput, error)
	ModifyRule(context.Context, *elbv2.ModifyRuleInput, ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error)
	DeleteRule(context.Context, *elbv2.DeleteRuleInput, ...func(*elbv2.Options)) (*elbv2.DeleteRuleOutput, error)

	DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
	CreateTargetGroup(context.Context, *elbv2.CreateTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.CreateTargetGroupOutput, error)
	ModifyTargetGroup(context.Context, *elbv2.ModifyTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupOutput, error)
	DeleteTargetGroup(context.Context, *elbv2.DeleteTargetGroupInput, ...func(*elbv2.Options)) (*elbv2.DeleteTargetGroupOutput, error)
	DescribeTargetGroupAttributes(context.Context, *elbv2.DescribeTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupAttributesOutput, error)
	ModifyTargetGroupAttributes(context.Context, *elbv2.ModifyTargetGroupAttributesInput, ...func(*elbv2.Options)) (*elbv2.ModifyTargetGroupAttributesOutput, error)

	DescribeTags(context.Context, *elbv2.DescribeTagsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTagsOutput, error)
	AddTags(context.Context, *elbv2.AddTagsInput, ...func(*elbv2.Options)) (*elbv2.AddTagsOutput, error)
	RemoveTags(context.Context, *elbv2.RemoveTagsInput, ...func(*elbv2.Options)) (*elbv2.RemoveTagsOutput, error)
}

// EC2API is the part of the EC2 client the deployer uses (subnet discovery); *ec2.Client satisfies it.
type EC2API interface {
	DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
}

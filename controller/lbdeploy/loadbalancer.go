package lbdeploy

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

type deployedLB struct {
	arn     string
	dnsName string
}

// syncLoadBalancer keeps the stack's load balancer if its name, type and scheme (which ELBv2 cannot modify)
// still match, updating the rest; any other load balancer of the stack is deleted, and one is created if none
// is left.
func (d *Deployer) syncLoadBalancer(ctx context.Context, log logr.Logger, stack lbmodel.Stack, found discovered) (deployedLB, error) {
	want := stack.LoadBalancer
	subnets, err := d.resolveSubnets(ctx, want.Subnets)
	if err != nil {
		return deployedLB{}, err
	}
	var keep *existingLB
	for i, lb := range found.loadBalancers {
		if keep == nil && aws.ToString(lb.lb.LoadBalancerName) == want.Name && string(lb.lb.Type) == want.Type && string(lb.lb.Scheme) == want.Scheme {
			keep = &found.loadBalancers[i]
			continue
		}
		if err := d.deleteLoadBalancer(ctx, log, lb.arn); err != nil {
			return deployedLB{}, err
		}
	}
	if keep == nil {
		return d.createLoadBalancer(ctx, log, want, subnets)
	}
	if err := d.updateLoadBalancer(ctx, log, *keep, want, subnets); err != nil {
		return deployedLB{}, err
	}
	return deployedLB{arn: keep.arn, dnsName: keep.dnsName}, nil
}

func (d *Deployer) createLoadBalancer(ctx context.Context, log logr.Logger, want lbmodel.LoadBalancer, subnets []string) (deployedLB, error) {
	in := &elbv2.CreateLoadBalancerInput{
		Name: aws.String(want.Name), Type: elbtypes.LoadBalancerTypeEnum(want.Type), Scheme: elbtypes.LoadBalancerSchemeEnum(want.Scheme),
		IpAddressType: elbtypes.IpAddressType(want.IPAddressType), Subnets: subnets, Tags: sdkTags(want.Tags),
	}
	if len(want.SecurityGroups) > 0 {
		in.SecurityGroups = want.SecurityGroups
	}
	out, err := d.cfg.ELB.CreateLoadBalancer(ctx, in)
	if err != nil {
		return deployedLB{}, fmt.Errorf("CreateLoadBalancer %s: %w", want.Name, err)
	}
	lb := out.LoadBalancers[0]
	res := deployedLB{arn: aws.ToString(lb.LoadBalancerArn), dnsName: aws.ToString(lb.DNSName)}
	log.V(1).Info("created load balancer", "name", want.Name, "arn", res.arn)
	return res, d.syncLoadBalancerAttributes(ctx, res.arn, want.Attributes)
}

func (d *Deployer) updateLoadBalancer(ctx context.Context, log logr.Logger, have existingLB, want lbmodel.LoadBalancer, subnets []string) error {
	if haveSubnets := subnetsOf(have.lb); !slices.Equal(haveSubnets, subnets) {
		if _, err := d.cfg.ELB.SetSubnets(ctx, &elbv2.SetSubnetsInput{LoadBalancerArn: aws.String(have.arn), Subnets: subnets}); err != nil {
			return fmt.Errorf("SetSubnets %s: %w", have.arn, err)
		}
		log.V(1).Info("set load balancer subnets", "arn", have.arn, "from", haveSubnets, "to", subnets)
	}
	if len(want.SecurityGroups) > 0 && !sameSet(have.lb.SecurityGroups, want.SecurityGroups) {
		if _, err := d.cfg.ELB.SetSecurityGroups(ctx, &elbv2.SetSecurityGroupsInput{LoadBalancerArn: aws.String(have.arn), SecurityGroups: want.SecurityGroups}); err != nil {
			return fmt.Errorf("SetSecurityGroups %s: %w", have.arn, err)
		}
		log.V(1).Info("set load balancer security groups", "arn", have.arn)
	}
	if string(have.lb.IpAddressType) != want.IPAddressType {
		in := &elbv2.SetIpAddressTypeInput{LoadBalancerArn: aws.String(have.arn), IpAddressType: elbtypes.IpAddressType(want.IPAddressType)}
		if _, err := d.cfg.ELB.SetIpAddressType(ctx, in); err != nil {
			return fmt.Errorf("SetIpAddressType %s: %w", have.arn, err)
		}
		log.V(1).Info("set load balancer IP address type", "arn", have.arn, "type", want.IPAddressType)
	}
	if err := d.syncTags(ctx, have.arn, have.tags, want.Tags); err != nil {
		return err
	}
	return d.syncLoadBalancerAttributes(ctx, have.arn, want.Attributes)
}

func subnetsOf(lb elbtypes.LoadBalancer) []string {
	out := make([]string, 0, len(lb.AvailabilityZones))
	for _, az := range lb.AvailabilityZones {
		out = append(out, aws.ToString(az.SubnetId))
	}
	sort.Strings(out)
	return out
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(a, b)
}

// syncLoadBalancerAttributes sets the wanted attributes that differ, leaving the others at AWS's defaults.
func (d *Deployer) syncLoadBalancerAttributes(ctx context.Context, arn string, want map[string]string) error {
	if len(want) == 0 {
		return nil
	}
	out, err := d.cfg.ELB.DescribeLoadBalancerAttributes(ctx, &elbv2.DescribeLoadBalancerAttributesInput{LoadBalancerArn: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("DescribeLoadBalancerAttributes %s: %w", arn, err)
	}
	have := map[string]string{}
	for _, a := range out.Attributes {
		have[aws.ToString(a.Key)] = aws.ToString(a.Value)
	}
	var change []elbtypes.LoadBalancerAttribute
	for _, k := range changedKeys(have, want) {
		change = append(change, elbtypes.LoadBalancerAttribute{Key: aws.String(k), Value: aws.String(want[k])})
	}
	if len(change) == 0 {
		return nil
	}
	if _, err := d.cfg.ELB.ModifyLoadBalancerAttributes(ctx, &elbv2.ModifyLoadBalancerAttributesInput{LoadBalancerArn: aws.String(arn), Attributes: change}); err != nil {
		return fmt.Errorf("ModifyLoadBalancerAttributes %s: %w", arn, err)
	}
	return nil
}

func (d *Deployer) deleteLoadBalancer(ctx context.Context, log logr.Logger, arn string) error {
	if _, err := d.cfg.ELB.DeleteLoadBalancer(ctx, &elbv2.DeleteLoadBalancerInput{LoadBalancerArn: aws.String(arn)}); err != nil {
		return fmt.Errorf("DeleteLoadBalancer %s: %w", arn, err)
	}
	log.V(1).Info("deleted load balancer", "arn", arn)
	return nil
}

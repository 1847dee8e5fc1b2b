package lbdeploy

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// discoverStack finds what AWS holds of the stack at a cost that, for a stack whose load balancer and target
// groups exist, does not grow with the account: the load balancer by the model's name, and the target groups
// it forwards to (among them a replaced or removed one still in use). Only their tags are read, and only
// those tagged with this cluster and stack are kept, as in discover.
//
// A stack's target group is either in use by one of the stack's load balancers or in use by none (created
// by a deploy that was interrupted before a listener forwarded to it, or left by one interrupted before
// deleting it). So when the model names a target group that its load balancer does not use, the deploy
// also reads the tags of every target group no load balancer uses; and when no load balancer of the stack
// has the model's name (a new stack, or its load balancer is renamed), it reads the tags of every load
// balancer to find the stack's.
func (d *Deployer) discoverStack(ctx context.Context, log logr.Logger, stack lbmodel.Stack) (discovered, error) {
	named, ok, err := d.loadBalancerNamed(ctx, stack.LoadBalancer.Name)
	if err != nil {
		return discovered{}, err
	}
	if ok {
		found, err := d.stackResources(ctx, log, stack, []elbtypes.LoadBalancer{named})
		if err != nil || len(found.loadBalancers) == 1 {
			return found, err
		}
	}
	log.V(1).Info("no load balancer of the stack under the model's name; reading the tags of all", "name", stack.LoadBalancer.Name)
	all, err := d.allLoadBalancers(ctx)
	if err != nil {
		return discovered{}, err
	}
	tags, err := d.tagsOf(ctx, sortedKeys(all))
	if err != nil {
		return discovered{}, err
	}
	var owned []elbtypes.LoadBalancer
	for _, arn := range sortedKeys(all) {
		if d.ownedBy(tags[arn], stack.ID) {
			owned = append(owned, all[arn])
		}
	}
	return d.stackResources(ctx, log, stack, owned)
}

// stackResources keeps those of lbs tagged with the stack, and finds the stack's target groups among those
// lbs forward to and, if the model names one they do not, among those no load balancer uses.
func (d *Deployer) stackResources(ctx context.Context, log logr.Logger, stack lbmodel.Stack, lbs []elbtypes.LoadBalancer) (discovered, error) {
	tgs := map[string]elbtypes.TargetGroup{} // by ARN
	names := map[string]bool{}
	arns := make([]string, 0, len(lbs))
	for _, lb := range lbs {
		arns = append(arns, aws.ToString(lb.LoadBalancerArn))
		if err := d.addTargetGroups(ctx, tgs, &elbv2.DescribeTargetGroupsInput{LoadBalancerArn: lb.LoadBalancerArn}, false); err != nil {
			return discovered{}, err
		}
	}
	for _, tg := range tgs {
		names[aws.ToString(tg.TargetGroupName)] = true
	}
	for _, want := range stack.TargetGroups {
		if !names[want.Name] {
			log.V(1).Info("a target group of the model is not in use; reading the tags of all unused ones", "targetGroup", want.Name)
			if err := d.addTargetGroups(ctx, tgs, &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(400)}, true); err != nil {
				return discovered{}, err
			}
			break
		}
	}
	tags, err := d.tagsOf(ctx, append(arns, sortedKeys(tgs)...))
	if err != nil {
		return discovered{}, err
	}
	var out discovered
	for _, lb := range lbs {
		if arn := aws.ToString(lb.LoadBalancerArn); d.ownedBy(tags[arn], stack.ID) {
			out.loadBalancers = append(out.loadBalancers, existingLB{arn: arn, dnsName: aws.ToString(lb.DNSName), lb: lb, tags: tags[arn]})
		}
	}
	for _, arn := range sortedKeys(tgs) {
		if d.ownedBy(tags[arn], stack.ID) {
			out.targetGroups = append(out.targetGroups, existingTG{arn: arn, tg: tgs[arn], tags: tags[arn]})
		}
	}
	return out, nil
}

// loadBalancerNamed describes the load balancer called name; ok is false if there is none.
func (d *Deployer) loadBalancerNamed(ctx context.Context, name string) (elbtypes.LoadBalancer, bool, error) {
	out, err := d.cfg.ELB.DescribeLoadBalancers(ctx, &elbv2.DescribeLoadBalancersInput{Names: []string{name}})
	var notFound *elbtypes.LoadBalancerNotFoundException
	switch {
	case errors.As(err, &notFound):
		return elbtypes.LoadBalancer{}, false, nil
	case err != nil:
		return elbtypes.LoadBalancer{}, false, fmt.Errorf("DescribeLoadBalancers %s: %w", name, err)
	case len(out.LoadBalancers) == 0:
		return elbtypes.LoadBalancer{}, false, nil
	}
	return out.LoadBalancers[0], true, nil
}

// addTargetGroups runs DescribeTargetGroups over all its pages and adds the groups to into by ARN; with
// unusedOnly, only those no load balancer uses.
func (d *Deployer) addTargetGroups(ctx context.Context, into map[string]elbtypes.TargetGroup, in *elbv2.DescribeTargetGroupsInput, unusedOnly bool) error {
	p := elbv2.NewDescribeTargetGroupsPaginator(d.cfg.ELB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("DescribeTargetGroups: %w", err)
		}
		for _, tg := range page.TargetGroups {
			if !unusedOnly || len(tg.LoadBalancerArns) == 0 {
				into[aws.ToString(tg.TargetGroupArn)] = tg
			}
		}
	}
	return nil
}

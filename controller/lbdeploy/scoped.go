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

// discoverStack finds the stack's resources at a cost that does not grow with the account: its load balancer
// by the model's name, the target groups that load balancer forwards to (which include a replaced or removed
// one still attached), and the model's other target groups by name; it reads the tags of only those and keeps
// the ones tagged with this cluster and stack.
//
// Names alone cannot show everything a deploy must clean up, so it falls back to the full scan (discover)
// when there may be resources it cannot name: no load balancer of the stack under the model's name (a new
// stack, or one whose load balancer is being renamed or replaced); a model target group of the stack that no
// listener uses yet (a deploy was interrupted); or a model target group that does not exist yet. The last is
// the only sign of a target group that an interrupted deploy created, that nothing forwards to and that a
// newer model no longer names: a deploy that creates a target group pays for the scan, one that only updates
// does not.
func (d *Deployer) discoverStack(ctx context.Context, log logr.Logger, stack lbmodel.Stack) (discovered, error) {
	lb, ok, err := d.loadBalancerNamed(ctx, stack.LoadBalancer.Name)
	if err != nil || !ok {
		return d.fullScan(ctx, log, stack.ID, "no load balancer under the model's name", err)
	}
	lbARN := aws.ToString(lb.LoadBalancerArn)
	attached, err := d.targetGroupsOf(ctx, lbARN)
	if err != nil {
		return discovered{}, err
	}
	var missing []string
	for _, want := range stack.TargetGroups {
		if _, ok := attached[want.Name]; !ok {
			missing = append(missing, want.Name)
		}
	}
	unattached, err := d.targetGroupsNamed(ctx, missing)
	if err != nil {
		return discovered{}, err
	}
	if len(unattached) < len(missing) {
		return d.fullScan(ctx, log, stack.ID, "the deploy creates a target group", nil)
	}
	arns := []string{lbARN}
	for _, group := range []map[string]elbtypes.TargetGroup{attached, unattached} {
		for _, tg := range group {
			arns = append(arns, aws.ToString(tg.TargetGroupArn))
		}
	}
	tags, err := d.tagsOf(ctx, arns)
	if err != nil {
		return discovered{}, err
	}
	if !d.ownedBy(tags[lbARN], stack.ID) { // someone else's load balancer has the name; let the full scan decide
		return d.fullScan(ctx, log, stack.ID, "the load balancer under the model's name is not the stack's", nil)
	}
	for _, tg := range unattached {
		if d.ownedBy(tags[aws.ToString(tg.TargetGroupArn)], stack.ID) {
			return d.fullScan(ctx, log, stack.ID, "a target group of the stack is not in use yet", nil)
		}
	}
	out := discovered{loadBalancers: []existingLB{{arn: lbARN, dnsName: aws.ToString(lb.DNSName), lb: lb, tags: tags[lbARN]}}}
	for _, name := range sortedKeys(attached) {
		tg := attached[name]
		arn := aws.ToString(tg.TargetGroupArn)
		if d.ownedBy(tags[arn], stack.ID) {
			out.targetGroups = append(out.targetGroups, existingTG{arn: arn, tg: tg, tags: tags[arn]})
		}
	}
	return out, nil
}

// fullScan is discover, logged with why the scoped lookup was not enough (unless lookupErr ends the deploy).
func (d *Deployer) fullScan(ctx context.Context, log logr.Logger, id lbmodel.StackID, why string, lookupErr error) (discovered, error) {
	if lookupErr != nil {
		return discovered{}, lookupErr
	}
	log.V(1).Info("scanning all load balancers and target groups", "reason", why)
	return d.discover(ctx, id)
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

// targetGroupsOf describes the target groups the load balancer's listeners and rules forward to, by name.
func (d *Deployer) targetGroupsOf(ctx context.Context, lbARN string) (map[string]elbtypes.TargetGroup, error) {
	return d.describeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{LoadBalancerArn: aws.String(lbARN)})
}

// targetGroupsNamed describes the target groups that exist among names. One call asks for all of them; since
// ELBv2 fails the whole call with TargetGroupNotFound if any is missing, it then asks for each alone.
func (d *Deployer) targetGroupsNamed(ctx context.Context, names []string) (map[string]elbtypes.TargetGroup, error) {
	if len(names) == 0 {
		return nil, nil
	}
	all, err := d.describeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: names})
	var notFound *elbtypes.TargetGroupNotFoundException
	if !errors.As(err, &notFound) {
		return all, err
	}
	out := map[string]elbtypes.TargetGroup{}
	if len(names) == 1 {
		return out, nil
	}
	for _, name := range names {
		one, err := d.describeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{Names: []string{name}})
		if errors.As(err, &notFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		for k, tg := range one {
			out[k] = tg
		}
	}
	return out, nil
}

// describeTargetGroups runs a filtered DescribeTargetGroups over all its pages and keys the result by name.
func (d *Deployer) describeTargetGroups(ctx context.Context, in *elbv2.DescribeTargetGroupsInput) (map[string]elbtypes.TargetGroup, error) {
	out := map[string]elbtypes.TargetGroup{}
	p := elbv2.NewDescribeTargetGroupsPaginator(d.cfg.ELB, in)
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("DescribeTargetGroups: %w", err)
		}
		for _, tg := range page.TargetGroups {
			out[aws.ToString(tg.TargetGroupName)] = tg
		}
	}
	return out, nil
}

// Package tgattach puts target groups behind Application Load Balancers, as the AWS Load Balancer Controller
// does with the groups it makes: ELBv2 health checks only the targets of a group a listener or rule forwards
// to, and reports those of any other group "unused", so a fleet's groups need a load balancer for their
// targets to turn healthy.
package tgattach

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
)

// RulesPerLoadBalancer is how many groups one load balancer takes, one listener rule each: AWS allows 100 rules
// (default rules aside) and 100 target groups per Application Load Balancer.
const RulesPerLoadBalancer = 100

// LoadBalancersFor is how many load balancers n groups fill.
func LoadBalancersFor(n int) int { return (n + RulesPerLoadBalancer - 1) / RulesPerLoadBalancer }

// ELB is the part of the ELBv2 client the Attacher uses.
type ELB interface {
	CreateLoadBalancer(context.Context, *elbv2.CreateLoadBalancerInput, ...func(*elbv2.Options)) (*elbv2.CreateLoadBalancerOutput, error)
	CreateListener(context.Context, *elbv2.CreateListenerInput, ...func(*elbv2.Options)) (*elbv2.CreateListenerOutput, error)
	CreateRule(context.Context, *elbv2.CreateRuleInput, ...func(*elbv2.Options)) (*elbv2.CreateRuleOutput, error)
	DescribeRules(context.Context, *elbv2.DescribeRulesInput, ...func(*elbv2.Options)) (*elbv2.DescribeRulesOutput, error)
}

// EC2 is the part of the EC2 client the Attacher uses.
type EC2 interface {
	DescribeSubnets(context.Context, *ec2.DescribeSubnetsInput, ...func(*ec2.Options)) (*ec2.DescribeSubnetsOutput, error)
}

// Attacher packs target groups onto load balancers named rsim-<vpc>-<n>, each with one HTTP listener on port 80
// whose default action answers 404 and one path rule per group. It is safe for concurrent use.
type Attacher struct {
	elb ELB
	ec2 EC2

	mu   sync.Mutex
	open map[string]*slot // by VPC: the load balancer groups go to next
}

type slot struct {
	index    int    // n of rsim-<vpc>-<n>
	listener string // its listener's ARN
	next     int32  // the next free rule priority
}

// New returns an Attacher that calls AWS through elb and ec2.
func New(elb ELB, ec2 EC2) *Attacher {
	return &Attacher{elb: elb, ec2: ec2, open: map[string]*slot{}}
}

// Attach makes a listener rule of a fleet load balancer in the group's VPC forward to tg, unless a load
// balancer already forwards to it (a group created again, on an endpoint that kept it).
func (a *Attacher) Attach(ctx context.Context, tg elbtypes.TargetGroup) error {
	if len(tg.LoadBalancerArns) > 0 {
		return nil
	}
	for attempt := 0; ; attempt++ {
		listener, priority, err := a.reserve(ctx, aws.ToString(tg.VpcId))
		if err != nil {
			return fmt.Errorf("attaching target group %s: %w", aws.ToString(tg.TargetGroupName), err)
		}
		_, err = a.elb.CreateRule(ctx, &elbv2.CreateRuleInput{ListenerArn: aws.String(listener), Priority: aws.Int32(priority),
			Conditions: []elbtypes.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{"/" + aws.ToString(tg.TargetGroupName) + "/*"}}},
			Actions:    []elbtypes.Action{{Type: elbtypes.ActionTypeEnumForward, TargetGroupArn: tg.TargetGroupArn}}})
		// A load balancer that fills up under us (someone else's rules, a lower quota) is left for the next.
		if code := apiCode(err); (code == "TooManyRules" || code == "PriorityInUse" || code == "TooManyTargetGroups") && attempt < 3 {
			a.full(aws.ToString(tg.VpcId), listener)
			continue
		}
		if err != nil {
			return fmt.Errorf("attaching target group %s: CreateRule: %w", aws.ToString(tg.TargetGroupName), err)
		}
		return nil
	}
}

// reserve returns a listener and a rule priority free on it, opening the VPC's next load balancer when the
// current one is full. Only opening a load balancer holds the lock across calls.
func (a *Attacher) reserve(ctx context.Context, vpc string) (string, int32, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s := a.open[vpc]
	for s == nil || s.next > RulesPerLoadBalancer {
		index := 0
		if s != nil {
			index = s.index + 1
		}
		var err error
		if s, err = a.openLB(ctx, vpc, index); err != nil {
			return "", 0, err
		}
		a.open[vpc] = s
	}
	p := s.next
	s.next++
	return s.listener, p, nil
}

// full marks the VPC's open load balancer full if it is still the one listener names.
func (a *Attacher) full(vpc, listener string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.open[vpc]; s != nil && s.listener == listener {
		s.next = RulesPerLoadBalancer + 1
	}
}

// openLB creates (or, on an endpoint that kept it, finds: both calls are idempotent) the load balancer
// rsim-<vpc>-<index> and its listener, and skips the priorities its rules already hold.
func (a *Attacher) openLB(ctx context.Context, vpc string, index int) (*slot, error) {
	subnets, err := a.subnets(ctx, vpc)
	if err != nil {
		return nil, err
	}
	name := "rsim-" + vpc + "-" + strconv.Itoa(index)
	lb, err := a.elb.CreateLoadBalancer(ctx, &elbv2.CreateLoadBalancerInput{Name: aws.String(name), Subnets: subnets,
		Type: elbtypes.LoadBalancerTypeEnumApplication, Scheme: elbtypes.LoadBalancerSchemeEnumInternal})
	if err != nil {
		return nil, fmt.Errorf("CreateLoadBalancer %s: %w", name, err)
	}
	l, err := a.elb.CreateListener(ctx, &elbv2.CreateListenerInput{LoadBalancerArn: lb.LoadBalancers[0].LoadBalancerArn,
		Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80),
		DefaultActions: []elbtypes.Action{{Type: elbtypes.ActionTypeEnumFixedResponse,
			FixedResponseConfig: &elbtypes.FixedResponseActionConfig{StatusCode: aws.String("404")}}}})
	if err != nil {
		return nil, fmt.Errorf("CreateListener of %s: %w", name, err)
	}
	s := &slot{index: index, listener: aws.ToString(l.Listeners[0].ListenerArn), next: 1}
	rules, err := a.elb.DescribeRules(ctx, &elbv2.DescribeRulesInput{ListenerArn: aws.String(s.listener)})
	if err != nil {
		return nil, fmt.Errorf("DescribeRules of %s: %w", name, err)
	}
	for _, r := range rules.Rules {
		if p, err := strconv.Atoi(aws.ToString(r.Priority)); err == nil && int32(p) >= s.next {
			s.next = int32(p) + 1
		}
	}
	return s, nil
}

// subnets returns one subnet of the VPC per Availability Zone, in zone order: an Application Load Balancer
// needs two zones at least.
func (a *Attacher) subnets(ctx context.Context, vpc string) ([]string, error) {
	byZone := map[string]string{}
	p := ec2.NewDescribeSubnetsPaginator(a.ec2, &ec2.DescribeSubnetsInput{Filters: []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{vpc}}}})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("DescribeSubnets of %s: %w", vpc, err)
		}
		for _, sn := range out.Subnets {
			if z := aws.ToString(sn.AvailabilityZone); byZone[z] == "" {
				byZone[z] = aws.ToString(sn.SubnetId)
			}
		}
	}
	if len(byZone) < 2 {
		return nil, fmt.Errorf("VPC %s has subnets in %d Availability Zones; a load balancer needs two", vpc, len(byZone))
	}
	zones := make([]string, 0, len(byZone))
	for z := range byZone {
		zones = append(zones, z)
	}
	slices.Sort(zones)
	out := make([]string, len(zones))
	for i, z := range zones {
		out[i] = byZone[z]
	}
	return out, nil
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

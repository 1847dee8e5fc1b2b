package awsclient

import (
	"context"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/controller/internal/targets"
	"github.com/restartsim/restartsim/controller/internal/ttlcache"
)

// ELBV2API is the part of the ELBv2 client the controller uses.
type ELBV2API interface {
	DescribeTargetHealth(context.Context, *elbv2.DescribeTargetHealthInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetHealthOutput, error)
	RegisterTargets(context.Context, *elbv2.RegisterTargetsInput, ...func(*elbv2.Options)) (*elbv2.RegisterTargetsOutput, error)
	DeregisterTargets(context.Context, *elbv2.DeregisterTargetsInput, ...func(*elbv2.Options)) (*elbv2.DeregisterTargetsOutput, error)
	DescribeTargetGroups(context.Context, *elbv2.DescribeTargetGroupsInput, ...func(*elbv2.Options)) (*elbv2.DescribeTargetGroupsOutput, error)
}

// TargetGroup is what the controller needs to know about a target group.
type TargetGroup struct {
	ARN        string
	TargetType string // "ip" or "instance"
	VpcID      string
}

// ELB wraps ELBv2 with a per-target-group target health cache.
type ELB struct {
	api    ELBV2API
	health *ttlcache.Cache[string, []targets.Health]
	groups *ttlcache.Cache[string, TargetGroup]
}

// NewELB wraps api; healthTTL is the target health cache TTL, clk the time source.
func NewELB(api ELBV2API, healthTTL time.Duration, clk clock.PassiveClock) *ELB {
	return &ELB{
		api:    api,
		health: ttlcache.New[string, []targets.Health](healthTTL, clk),
		groups: ttlcache.New[string, TargetGroup](24*time.Hour, clk),
	}
}

// ListTargets returns the target group's targets, from the cache when fresh.
func (e *ELB) ListTargets(ctx context.Context, tgARN string) ([]targets.Health, error) {
	if hs, ok := e.health.Get(tgARN); ok {
		return hs, nil
	}
	out, err := e.api.DescribeTargetHealth(ctx, &elbv2.DescribeTargetHealthInput{TargetGroupArn: aws.String(tgARN)})
	if err != nil {
		return nil, fmt.Errorf("DescribeTargetHealth %s: %w", tgARN, err)
	}
	hs := make([]targets.Health, 0, len(out.TargetHealthDescriptions))
	for _, d := range out.TargetHealthDescriptions {
		h := targets.Health{Target: targets.Target{ID: aws.ToString(d.Target.Id), Port: aws.ToInt32(d.Target.Port),
			AvailabilityZone: aws.ToString(d.Target.AvailabilityZone)}}
		if d.TargetHealth != nil {
			h.State = string(d.TargetHealth.State)
			h.Reason = string(d.TargetHealth.Reason)
		}
		hs = append(hs, h)
	}
	e.health.Set(tgARN, hs)
	return hs, nil
}

// ListTargetsFresh is ListTargets reusing a cached answer only when it is younger than maxAge
// (the drift check's read).
func (e *ELB) ListTargetsFresh(ctx context.Context, tgARN string, maxAge time.Duration) ([]targets.Health, error) {
	if hs, ok := e.health.GetFresh(tgARN, maxAge); ok {
		return hs, nil
	}
	e.health.Delete(tgARN)
	return e.ListTargets(ctx, tgARN)
}

// InvalidateTargets drops the cached target health of a target group.
func (e *ELB) InvalidateTargets(tgARN string) { e.health.Delete(tgARN) }

// RegisterTargets registers ts in chunks of targets.ChunkSize and drops the health cache entry.
func (e *ELB) RegisterTargets(ctx context.Context, tgARN string, ts []targets.Target) error {
	defer e.InvalidateTargets(tgARN)
	for _, chunk := range targets.Chunks(ts, targets.ChunkSize) {
		if _, err := e.api.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tgARN), Targets: sdkTargets(chunk)}); err != nil {
			return fmt.Errorf("RegisterTargets %s: %w", tgARN, err)
		}
	}
	return nil
}

// DeregisterTargets deregisters ts in chunks of targets.ChunkSize and drops the health cache entry.
func (e *ELB) DeregisterTargets(ctx context.Context, tgARN string, ts []targets.Target) error {
	defer e.InvalidateTargets(tgARN)
	for _, chunk := range targets.Chunks(ts, targets.ChunkSize) {
		if _, err := e.api.DeregisterTargets(ctx, &elbv2.DeregisterTargetsInput{TargetGroupArn: aws.String(tgARN), Targets: sdkTargets(chunk)}); err != nil {
			return fmt.Errorf("DeregisterTargets %s: %w", tgARN, err)
		}
	}
	return nil
}

// DescribeTargetGroup looks a target group up by ARN or, when arn is empty, by name (cached).
func (e *ELB) DescribeTargetGroup(ctx context.Context, arn, name string) (TargetGroup, error) {
	key := arn + "|" + name
	if tg, ok := e.groups.Get(key); ok {
		return tg, nil
	}
	in := &elbv2.DescribeTargetGroupsInput{}
	if arn != "" {
		in.TargetGroupArns = []string{arn}
	} else {
		in.Names = []string{name}
	}
	out, err := e.api.DescribeTargetGroups(ctx, in)
	if err != nil {
		return TargetGroup{}, fmt.Errorf("DescribeTargetGroups %s%s: %w", arn, name, err)
	}
	if len(out.TargetGroups) != 1 {
		return TargetGroup{}, fmt.Errorf("DescribeTargetGroups %s%s: %d target groups", arn, name, len(out.TargetGroups))
	}
	g := out.TargetGroups[0]
	tg := TargetGroup{ARN: aws.ToString(g.TargetGroupArn), TargetType: string(g.TargetType), VpcID: aws.ToString(g.VpcId)}
	e.groups.Set(key, tg)
	return tg, nil
}

func sdkTargets(ts []targets.Target) []elbtypes.TargetDescription {
	out := make([]elbtypes.TargetDescription, len(ts))
	for i, t := range ts {
		out[i] = elbtypes.TargetDescription{Id: aws.String(t.ID), Port: aws.Int32(t.Port)}
		if t.AvailabilityZone != "" {
			out[i].AvailabilityZone = aws.String(t.AvailabilityZone)
		}
	}
	return out
}

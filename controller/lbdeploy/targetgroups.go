package lbdeploy

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// syncTargetGroups creates the missing target groups and updates the others; it returns each model ID's ARN
// and the stack's target groups no longer wanted (removed, or replaced because a field AWS cannot modify
// changed), to delete once nothing forwards to them.
func (d *Deployer) syncTargetGroups(ctx context.Context, log logr.Logger, stack lbmodel.Stack, found discovered) (map[string]string, []string, error) {
	arns := make(map[string]string, len(stack.TargetGroups))
	kept := map[string]bool{}
	for _, want := range stack.TargetGroups {
		have, ok := matchTargetGroup(found.targetGroups, stack.ID, want)
		if !ok {
			arn, err := d.createTargetGroup(ctx, log, want)
			if err != nil {
				return nil, nil, err
			}
			arns[want.ID] = arn
			continue
		}
		kept[have.arn] = true
		arns[want.ID] = have.arn
		if err := d.updateTargetGroup(ctx, log, have, want); err != nil {
			return nil, nil, err
		}
	}
	var stale []string
	for _, tg := range found.targetGroups {
		if !kept[tg.arn] {
			stale = append(stale, tg.arn)
		}
	}
	return arns, stale, nil
}

// matchTargetGroup finds the existing target group of a model one: same resource tag and the same name,
// protocol, port and target type (which ELBv2 cannot modify; the name changes with them).
func matchTargetGroup(existing []existingTG, id lbmodel.StackID, want lbmodel.TargetGroup) (existingTG, bool) {
	for _, tg := range existing {
		if tg.tags[id.ResourceTagKey()] == want.ID && aws.ToString(tg.tg.TargetGroupName) == want.Name &&
			string(tg.tg.Protocol) == want.Protocol && aws.ToInt32(tg.tg.Port) == want.Port &&
			string(tg.tg.TargetType) == want.TargetType {
			return tg, true
		}
	}
	return existingTG{}, false
}

func (d *Deployer) createTargetGroup(ctx context.Context, log logr.Logger, want lbmodel.TargetGroup) (string, error) {
	hc := want.HealthCheck
	in := &elbv2.CreateTargetGroupInput{
		Name: aws.String(want.Name), Protocol: elbtypes.ProtocolEnum(want.Protocol), Port: aws.Int32(want.Port),
		TargetType: elbtypes.TargetTypeEnum(want.TargetType), VpcId: aws.String(d.cfg.VpcID),
		HealthCheckProtocol: elbtypes.ProtocolEnum(hc.Protocol), HealthCheckPort: aws.String(hc.Port),
		HealthCheckIntervalSeconds: aws.Int32(hc.IntervalSeconds), HealthCheckTimeoutSeconds: aws.Int32(hc.TimeoutSeconds),
		HealthyThresholdCount: aws.Int32(hc.HealthyThreshold), UnhealthyThresholdCount: aws.Int32(hc.UnhealthyThreshold),
		Tags: sdkTags(want.Tags),
	}
	in.HealthCheckPath, in.Matcher = pathAndMatcher(hc)
	out, err := d.cfg.ELB.CreateTargetGroup(ctx, in)
	if err != nil {
		return "", fmt.Errorf("CreateTargetGroup %s (%s): %w", want.Name, want.ID, err)
	}
	arn := aws.ToString(out.TargetGroups[0].TargetGroupArn)
	log.V(1).Info("created target group", "id", want.ID, "arn", arn)
	if err := d.syncTargetGroupAttributes(ctx, arn, want.Attributes); err != nil {
		return "", err
	}
	return arn, nil
}

func (d *Deployer) updateTargetGroup(ctx context.Context, log logr.Logger, have existingTG, want lbmodel.TargetGroup) error {
	if healthCheckOf(have.tg) != want.HealthCheck {
		hc := want.HealthCheck
		in := &elbv2.ModifyTargetGroupInput{
			TargetGroupArn: aws.String(have.arn), HealthCheckProtocol: elbtypes.ProtocolEnum(hc.Protocol),
			HealthCheckPort: aws.String(hc.Port), HealthCheckIntervalSeconds: aws.Int32(hc.IntervalSeconds),
			HealthCheckTimeoutSeconds: aws.Int32(hc.TimeoutSeconds), HealthyThresholdCount: aws.Int32(hc.HealthyThreshold),
			UnhealthyThresholdCount: aws.Int32(hc.UnhealthyThreshold),
		}
		in.HealthCheckPath, in.Matcher = pathAndMatcher(hc)
		if _, err := d.cfg.ELB.ModifyTargetGroup(ctx, in); err != nil {
			return fmt.Errorf("ModifyTargetGroup %s: %w", have.arn, err)
		}
		log.V(1).Info("modified target group health check", "id", want.ID, "arn", have.arn)
	}
	if err := d.syncTags(ctx, have.arn, have.tags, want.Tags); err != nil {
		return err
	}
	return d.syncTargetGroupAttributes(ctx, have.arn, want.Attributes)
}

// pathAndMatcher are the HTTP-only health check fields, nil when unset so AWS keeps its default.
func pathAndMatcher(hc lbmodel.HealthCheck) (*string, *elbtypes.Matcher) {
	var path *string
	var m *elbtypes.Matcher
	if hc.Path != "" {
		path = aws.String(hc.Path)
	}
	if hc.Matcher != "" {
		m = &elbtypes.Matcher{HttpCode: aws.String(hc.Matcher)}
	}
	return path, m
}

// healthCheckOf is the described health check in model form. A TCP or UDP check has no path or matcher.
func healthCheckOf(tg elbtypes.TargetGroup) lbmodel.HealthCheck {
	hc := lbmodel.HealthCheck{
		Protocol: string(tg.HealthCheckProtocol), Port: aws.ToString(tg.HealthCheckPort),
		Path: aws.ToString(tg.HealthCheckPath), IntervalSeconds: aws.ToInt32(tg.HealthCheckIntervalSeconds),
		TimeoutSeconds: aws.ToInt32(tg.HealthCheckTimeoutSeconds), HealthyThreshold: aws.ToInt32(tg.HealthyThresholdCount),
		UnhealthyThreshold: aws.ToInt32(tg.UnhealthyThresholdCount),
	}
	if tg.Matcher != nil {
		hc.Matcher = aws.ToString(tg.Matcher.HttpCode)
	}
	if hc.Protocol != "HTTP" && hc.Protocol != "HTTPS" { // whatever AWS reports there, a TCP check uses neither
		hc.Path, hc.Matcher = "", ""
	}
	return hc
}

// syncTargetGroupAttributes sets the wanted attributes that differ; attributes the model does not name are
// left alone (AWS has a default for each), so a stack without attributes costs no call.
func (d *Deployer) syncTargetGroupAttributes(ctx context.Context, arn string, want map[string]string) error {
	if len(want) == 0 {
		return nil
	}
	out, err := d.cfg.ELB.DescribeTargetGroupAttributes(ctx, &elbv2.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(arn)})
	if err != nil {
		return fmt.Errorf("DescribeTargetGroupAttributes %s: %w", arn, err)
	}
	have := map[string]string{}
	for _, a := range out.Attributes {
		have[aws.ToString(a.Key)] = aws.ToString(a.Value)
	}
	var change []elbtypes.TargetGroupAttribute
	for _, k := range changedKeys(have, want) {
		change = append(change, elbtypes.TargetGroupAttribute{Key: aws.String(k), Value: aws.String(want[k])})
	}
	if len(change) == 0 {
		return nil
	}
	if _, err := d.cfg.ELB.ModifyTargetGroupAttributes(ctx, &elbv2.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(arn), Attributes: change}); err != nil {
		return fmt.Errorf("ModifyTargetGroupAttributes %s: %w", arn, err)
	}
	return nil
}

func (d *Deployer) deleteTargetGroup(ctx context.Context, log logr.Logger, arn string) error {
	if _, err := d.cfg.ELB.DeleteTargetGroup(ctx, &elbv2.DeleteTargetGroupInput{TargetGroupArn: aws.String(arn)}); err != nil {
		return fmt.Errorf("DeleteTargetGroup %s: %w", arn, err)
	}
	log.V(1).Info("deleted target group", "arn", arn)
	return nil
}

package lbdeploy

import (
	"context"
	"fmt"
	"reflect"
	"sort"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// syncRules makes the listener's non-default rules, keyed by priority, match want: a rule whose conditions or
// actions differ is modified in place, missing priorities are created and the rest deleted.
//
// A rule with an authenticate-oidc action is written on every deploy: AWS never returns the client secret, so
// no describe can tell whether a rotated secret is already in effect. That is the one write an unchanged stack
// costs, and with a checkpoint that covers the Secret (lbmodel.Checkpoint) a controller deploys only when
// an input did change.
func (d *Deployer) syncRules(ctx context.Context, log logr.Logger, listenerARN string, want []lbmodel.Rule, tgARNs map[string]string) error {
	have, err := d.describeRules(ctx, listenerARN)
	if err != nil {
		return err
	}
	wanted := map[int32]bool{}
	for _, r := range want {
		wanted[r.Priority] = true
		actions, err := sdkActions(r.Actions, tgARNs)
		if err != nil {
			return fmt.Errorf("rule %d: %w", r.Priority, err)
		}
		conds := sdkConditions(r.Conditions)
		cur, ok := have[r.Priority]
		switch {
		case !ok:
			out, err := d.cfg.ELB.CreateRule(ctx, &elbv2.CreateRuleInput{ListenerArn: aws.String(listenerARN), Priority: aws.Int32(r.Priority), Conditions: conds, Actions: actions})
			if err != nil {
				return fmt.Errorf("CreateRule %d on %s: %w", r.Priority, listenerARN, err)
			}
			log.V(1).Info("created rule", "priority", r.Priority, "arn", aws.ToString(out.Rules[0].RuleArn))
		case authenticates(actions) || !sameConditions(cur.Conditions, conds) || !sameActions(cur.Actions, actions):
			if _, err := d.cfg.ELB.ModifyRule(ctx, &elbv2.ModifyRuleInput{RuleArn: cur.RuleArn, Conditions: conds, Actions: actions}); err != nil {
				return fmt.Errorf("ModifyRule %s: %w", aws.ToString(cur.RuleArn), err)
			}
			log.V(1).Info("modified rule", "priority", r.Priority, "arn", aws.ToString(cur.RuleArn))
		}
	}
	for _, p := range sortedPorts(have) {
		if wanted[p] {
			continue
		}
		if _, err := d.cfg.ELB.DeleteRule(ctx, &elbv2.DeleteRuleInput{RuleArn: have[p].RuleArn}); err != nil {
			return fmt.Errorf("DeleteRule %s: %w", aws.ToString(have[p].RuleArn), err)
		}
		log.V(1).Info("deleted rule", "priority", p, "arn", aws.ToString(have[p].RuleArn))
	}
	return nil
}

// describeRules returns the listener's non-default rules by priority.
func (d *Deployer) describeRules(ctx context.Context, listenerARN string) (map[int32]elbtypes.Rule, error) {
	have := map[int32]elbtypes.Rule{}
	in := &elbv2.DescribeRulesInput{ListenerArn: aws.String(listenerARN)}
	for {
		out, err := d.cfg.ELB.DescribeRules(ctx, in)
		if err != nil {
			return nil, fmt.Errorf("DescribeRules %s: %w", listenerARN, err)
		}
		for _, r := range out.Rules {
			if aws.ToBool(r.IsDefault) {
				continue
			}
			p, err := strconv.ParseInt(aws.ToString(r.Priority), 10, 32)
			if err != nil {
				return nil, fmt.Errorf("rule %s has priority %q: %w", aws.ToString(r.RuleArn), aws.ToString(r.Priority), err)
			}
			have[int32(p)] = r
		}
		if aws.ToString(out.NextMarker) == "" {
			return have, nil
		}
		in.Marker = out.NextMarker
	}
}

func sdkConditions(conds []lbmodel.Condition) []elbtypes.RuleCondition {
	out := make([]elbtypes.RuleCondition, 0, len(conds))
	for _, c := range conds {
		rc := elbtypes.RuleCondition{Field: aws.String(c.Field)}
		switch c.Field {
		case lbmodel.FieldHostHeader:
			rc.HostHeaderConfig = &elbtypes.HostHeaderConditionConfig{Values: c.Values}
		case lbmodel.FieldPathPattern:
			rc.PathPatternConfig = &elbtypes.PathPatternConditionConfig{Values: c.Values}
		default:
			rc.Values = c.Values
		}
		out = append(out, rc)
	}
	return out
}

// conditionKeys reduces conditions to field and values, whichever way AWS spelled the values, sorted by field.
func conditionKeys(conds []elbtypes.RuleCondition) []lbmodel.Condition {
	out := make([]lbmodel.Condition, 0, len(conds))
	for _, c := range conds {
		values := c.Values
		if c.HostHeaderConfig != nil {
			values = c.HostHeaderConfig.Values
		}
		if c.PathPatternConfig != nil {
			values = c.PathPatternConfig.Values
		}
		out = append(out, lbmodel.Condition{Field: aws.ToString(c.Field), Values: append([]string{}, values...)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	return out
}

func sameConditions(have, want []elbtypes.RuleCondition) bool {
	return reflect.DeepEqual(conditionKeys(have), conditionKeys(want))
}

// sortedPorts gives int32 map keys (ports, priorities) in order.
func sortedPorts[T any](m map[int32]T) []int32 {
	out := make([]int32, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

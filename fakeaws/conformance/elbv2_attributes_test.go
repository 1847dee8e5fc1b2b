package conformance_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// Target group health thresholds (target_group_health.*) and their documented defaults.
const (
	tghDNSCount       = "target_group_health.dns_failover.minimum_healthy_targets.count"
	tghDNSPercent     = "target_group_health.dns_failover.minimum_healthy_targets.percentage"
	tghRoutingCount   = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count"
	tghRoutingPercent = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage"
)

func wantAttrs(want map[string]string, get func(out any) map[string]string) func(*testing.T, *elbFixture, any) {
	return func(t *testing.T, _ *elbFixture, out any) {
		got := get(out)
		for k, v := range want {
			if g, ok := got[k]; !ok || g != v {
				t.Errorf("attribute %s = %q (listed: %v), want %q", k, g, ok, v)
			}
		}
	}
}

func describedLBAttrs(out any) map[string]string {
	return lbAttrs(out.(*elb.DescribeLoadBalancerAttributesOutput).Attributes)
}

func describedTGAttrs(out any) map[string]string {
	return tgAttrs(out.(*elb.DescribeTargetGroupAttributesOutput).Attributes)
}

func modifiedTGAttrs(out any) map[string]string {
	return tgAttrs(out.(*elb.ModifyTargetGroupAttributesOutput).Attributes)
}

func setTGAttrs(kv ...string) func(f *elbFixture) any {
	return func(f *elbFixture) any {
		in := &elb.ModifyTargetGroupAttributesInput{TargetGroupArn: aws.String(f.arns["web"])}
		for i := 0; i+1 < len(kv); i += 2 {
			in.Attributes = append(in.Attributes, elbtypes.TargetGroupAttribute{Key: aws.String(kv[i]), Value: aws.String(kv[i+1])})
		}
		return in
	}
}

func elbAttributeCases() []elbCase {
	alb := func(f *elbFixture) { f.lb("web-lb", elbtypes.LoadBalancerTypeEnumApplication) }
	tg := func(f *elbFixture) { f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp) }
	tghDefaults := map[string]string{tghDNSCount: "1", tghDNSPercent: "off", tghRoutingCount: "1", tghRoutingPercent: "off"}
	return []elbCase{{
		name: "ALB attributes list cross-zone load balancing, always true", source: refLBAttribute,
		setup: alb,
		input: func(f *elbFixture) any {
			return &elb.DescribeLoadBalancerAttributesInput{LoadBalancerArn: aws.String(f.arns["web-lb"])}
		},
		want: wantAttrs(map[string]string{"load_balancing.cross_zone.enabled": "true"}, describedLBAttrs),
	}, {
		name: "NLB cross-zone load balancing defaults to false", source: refLBAttribute,
		setup: func(f *elbFixture) { f.lb("net", elbtypes.LoadBalancerTypeEnumNetwork) },
		input: func(f *elbFixture) any {
			return &elb.DescribeLoadBalancerAttributesInput{LoadBalancerArn: aws.String(f.arns["net"])}
		},
		want: wantAttrs(map[string]string{"load_balancing.cross_zone.enabled": "false"}, describedLBAttrs),
	}, {
		name: "ALB cross-zone load balancing cannot be turned off", source: refLBAttribute,
		setup: alb,
		input: func(f *elbFixture) any {
			return &elb.ModifyLoadBalancerAttributesInput{LoadBalancerArn: aws.String(f.arns["web-lb"]),
				Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String("load_balancing.cross_zone.enabled"), Value: aws.String("false")}}}
		},
		wantCode: "InvalidConfigurationRequest",
	}, {
		name: "target group health thresholds and their defaults", source: refTGAttribute,
		setup: tg,
		input: func(f *elbFixture) any {
			return &elb.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(f.arns["web"])}
		},
		want: wantAttrs(tghDefaults, describedTGAttrs),
	}, {
		name: "NLB target group health thresholds and their defaults", source: refTGAttribute,
		setup: func(f *elbFixture) { f.tg("web", elbtypes.ProtocolEnumTcp, 80, elbtypes.TargetTypeEnumIp) },
		input: func(f *elbFixture) any {
			return &elb.DescribeTargetGroupAttributesInput{TargetGroupArn: aws.String(f.arns["web"])}
		},
		want: wantAttrs(tghDefaults, describedTGAttrs),
	}, {
		name: "target group health thresholds are settable", source: refTGHealth,
		setup: tg,
		input: setTGAttrs(tghDNSCount, "3", tghDNSPercent, "70", tghRoutingCount, "2", tghRoutingPercent, "50"),
		want: wantAttrs(map[string]string{tghDNSCount: "3", tghDNSPercent: "70", tghRoutingCount: "2", tghRoutingPercent: "50"},
			modifiedTGAttrs),
	}, {
		name: "DNS failover count may be off", source: refTGAttribute,
		setup: tg, input: setTGAttrs(tghDNSCount, "off"),
		want: wantAttrs(map[string]string{tghDNSCount: "off"}, modifiedTGAttrs),
	}, {
		name: "unhealthy state routing count cannot be off", source: refTGAttribute,
		setup: tg, input: setTGAttrs(tghRoutingCount, "off"), wantCode: "InvalidConfigurationRequest",
	}, {
		name: "a percentage above 100 is refused", source: refTGAttribute,
		setup: tg, input: setTGAttrs(tghDNSPercent, "101"), wantCode: "InvalidConfigurationRequest",
	}, {
		name: "DNS failover threshold below unhealthy state routing's is refused", source: refTGHealth,
		setup: tg, input: setTGAttrs(tghDNSCount, "1", tghRoutingCount, "2"), wantCode: "InvalidConfigurationRequest",
	}}
}

package conformance_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
)

// healthCheck is the part of a described target group its health check defaults decide.
type healthCheck struct {
	protocol, port, path, matcher         string
	interval, timeout, healthy, unhealthy int32
	enabled                               bool
}

func describedHealthCheck(g elbtypes.TargetGroup) healthCheck {
	h := healthCheck{protocol: string(g.HealthCheckProtocol), port: aws.ToString(g.HealthCheckPort), path: aws.ToString(g.HealthCheckPath),
		interval: aws.ToInt32(g.HealthCheckIntervalSeconds), timeout: aws.ToInt32(g.HealthCheckTimeoutSeconds),
		healthy: aws.ToInt32(g.HealthyThresholdCount), unhealthy: aws.ToInt32(g.UnhealthyThresholdCount), enabled: aws.ToBool(g.HealthCheckEnabled)}
	if g.Matcher != nil {
		h.matcher = aws.ToString(g.Matcher.HttpCode)
	}
	return h
}

// wantHealthCheck checks the health check of the group a CreateTargetGroup made.
func wantHealthCheck(want healthCheck) func(*testing.T, *elbFixture, any) {
	return func(t *testing.T, _ *elbFixture, out any) {
		if got := describedHealthCheck(out.(*elb.CreateTargetGroupOutput).TargetGroups[0]); got != want {
			t.Errorf("health check %+v, want %+v", got, want)
		}
	}
}

func createTG(name string, protocol elbtypes.ProtocolEnum, port int32, tt elbtypes.TargetTypeEnum) func(*elbFixture) any {
	return func(f *elbFixture) any {
		in := &elb.CreateTargetGroupInput{Name: aws.String(name), Protocol: protocol, TargetType: tt}
		if tt != elbtypes.TargetTypeEnumLambda {
			in.Port, in.VpcId = aws.Int32(port), aws.String(f.srv.DefaultVPCID())
		}
		return in
	}
}

func elbTargetGroupCases() []elbCase {
	return []elbCase{{
		name: "HTTP target group health check defaults", source: refCreateTargetGroup,
		input: createTG("http", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp),
		want:  wantHealthCheck(healthCheck{"HTTP", "traffic-port", "/", "200", 30, 6, 5, 2, true}),
	}, {
		name: "HTTPS target group health check defaults", source: refCreateTargetGroup,
		input: createTG("https", elbtypes.ProtocolEnumHttps, 443, elbtypes.TargetTypeEnumIp),
		want:  wantHealthCheck(healthCheck{"HTTPS", "traffic-port", "/", "200", 30, 10, 5, 2, true}),
	}, {
		name: "TCP target group health check defaults", source: refCreateTargetGroup,
		input: createTG("tcp", elbtypes.ProtocolEnumTcp, 80, elbtypes.TargetTypeEnumInstance),
		want:  wantHealthCheck(healthCheck{"TCP", "traffic-port", "", "", 30, 10, 5, 2, true}),
	}, {
		name: "GENEVE target group health check defaults", source: refCreateTargetGroup,
		input: createTG("geneve", elbtypes.ProtocolEnumGeneve, 6081, elbtypes.TargetTypeEnumInstance),
		want:  wantHealthCheck(healthCheck{"TCP", "80", "", "", 10, 5, 5, 2, true}),
	}, {
		name: "Lambda target group health check defaults", source: refCreateTargetGroup,
		input: createTG("fn", "", 0, elbtypes.TargetTypeEnumLambda),
		want:  wantHealthCheck(healthCheck{"", "", "/", "200", 35, 30, 5, 5, false}),
	}, {
		name: "alb target group (TCP, an Application Load Balancer behind a Network Load Balancer)", source: refALBasNLBTarget,
		input: createTG("alb", elbtypes.ProtocolEnumTcp, 80, elbtypes.TargetTypeEnumAlb),
		want: func(t *testing.T, f *elbFixture, out any) {
			g := out.(*elb.CreateTargetGroupOutput).TargetGroups[0]
			if g.TargetType != elbtypes.TargetTypeEnumAlb || g.HealthCheckProtocol != elbtypes.ProtocolEnumHttp {
				t.Errorf("target type %s, health check protocol %s; want alb over HTTP", g.TargetType, g.HealthCheckProtocol)
			}
		},
	}, {
		name: "alb target group over HTTP is refused", source: refALBasNLBTarget,
		input: createTG("alb", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumAlb), wantCode: "ValidationError",
	}, {
		name: "alb target group with a TCP health check is refused", source: refALBasNLBTarget,
		input: func(f *elbFixture) any {
			in := createTG("alb", elbtypes.ProtocolEnumTcp, 80, elbtypes.TargetTypeEnumAlb)(f).(*elb.CreateTargetGroupInput)
			in.HealthCheckProtocol = elbtypes.ProtocolEnumTcp
			return in
		},
		wantCode: "ValidationError",
	}, {
		name: "an NLB forwards to an alb target group holding an ALB", source: refALBasNLBTarget,
		setup: func(f *elbFixture) {
			f.lb("front", elbtypes.LoadBalancerTypeEnumNetwork)
			f.lb("app", elbtypes.LoadBalancerTypeEnumApplication)
			f.tg("alb", elbtypes.ProtocolEnumTcp, 80, elbtypes.TargetTypeEnumAlb)
			f.forward("tcp", "front", elbtypes.ProtocolEnumTcp, 80, "alb")
		},
		input: func(f *elbFixture) any {
			return &elb.RegisterTargetsInput{TargetGroupArn: aws.String(f.arns["alb"]),
				Targets: []elbtypes.TargetDescription{{Id: aws.String(f.arns["app"]), Port: aws.Int32(80)}}}
		},
	}, {
		name: "CreateTargetGroup with the same name and settings returns the group", source: refCreateTargetGroup,
		setup: func(f *elbFixture) { f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp) },
		input: createTG("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp),
		want: func(t *testing.T, f *elbFixture, out any) {
			if got := aws.ToString(out.(*elb.CreateTargetGroupOutput).TargetGroups[0].TargetGroupArn); got != f.arns["web"] {
				t.Errorf("ARN %s, want the existing %s", got, f.arns["web"])
			}
		},
	}, {
		name: "CreateTargetGroup with the same name and other settings is DuplicateTargetGroupName", source: refCreateTargetGroup,
		setup:    func(f *elbFixture) { f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp) },
		input:    createTG("web", elbtypes.ProtocolEnumHttp, 8080, elbtypes.TargetTypeEnumIp),
		wantCode: "DuplicateTargetGroupName",
	}, {
		name: "DescribeTargetGroups of an unknown ARN is TargetGroupNotFound", source: refDescribeTGs,
		input: func(*elbFixture) any {
			return &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{"arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/none/0123456789abcdef"}}
		},
		wantCode: "TargetGroupNotFound",
	}, {
		name: "DeleteTargetGroup of a group a listener uses is ResourceInUse", source: refDeleteTG,
		setup: func(f *elbFixture) {
			f.lb("web-lb", elbtypes.LoadBalancerTypeEnumApplication)
			f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp)
			f.forward("http", "web-lb", elbtypes.ProtocolEnumHttp, 80, "web")
		},
		input:    func(f *elbFixture) any { return &elb.DeleteTargetGroupInput{TargetGroupArn: aws.String(f.arns["web"])} },
		wantCode: "ResourceInUse",
	}, {
		name: "ModifyTargetGroup with a TCP health check on an HTTP group is refused", source: refModifyTG,
		setup: func(f *elbFixture) { f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp) },
		input: func(f *elbFixture) any {
			return &elb.ModifyTargetGroupInput{TargetGroupArn: aws.String(f.arns["web"]), HealthCheckProtocol: elbtypes.ProtocolEnumTcp}
		},
		wantCode: "ValidationError",
	}, {
		name: "RegisterTargets of an address outside the VPC is InvalidTarget", source: refRegisterTargets,
		setup: func(f *elbFixture) { f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp) },
		input: func(f *elbFixture) any {
			return &elb.RegisterTargetsInput{TargetGroupArn: aws.String(f.arns["web"]),
				Targets: []elbtypes.TargetDescription{{Id: aws.String("192.168.0.1")}}}
		},
		wantCode: "InvalidTarget",
	}}
}

// wantTargetHealth checks the state, reason and description of the first target DescribeTargetHealth lists.
func wantTargetHealth(state elbtypes.TargetHealthStateEnum, reason elbtypes.TargetHealthReasonEnum, desc string) func(*testing.T, *elbFixture, any) {
	return func(t *testing.T, _ *elbFixture, out any) {
		ds := out.(*elb.DescribeTargetHealthOutput).TargetHealthDescriptions
		if len(ds) != 1 {
			t.Fatalf("%d targets, want 1", len(ds))
		}
		h := ds[0].TargetHealth
		if h.State != state || h.Reason != reason || (desc != "" && aws.ToString(h.Description) != desc) {
			t.Errorf("health %s/%s %q, want %s/%s %q", h.State, h.Reason, aws.ToString(h.Description), state, reason, desc)
		}
	}
}

func elbHealthCases() []elbCase {
	health := func(f *elbFixture) any {
		return &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(f.arns["web"])}
	}
	return []elbCase{{
		name: "targets of a group no load balancer uses are unused", source: refTargetHealth,
		setup: func(f *elbFixture) {
			f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp)
			f.register("web", "10.0.1.10")
		},
		input: health,
		want: wantTargetHealth(elbtypes.TargetHealthStateEnumUnused, elbtypes.TargetHealthReasonEnumNotInUse,
			"Target group is not configured to receive traffic from the load balancer"),
	}, {
		name: "targets of a group a listener forwards to start initial", source: refTargetHealth,
		setup: func(f *elbFixture) {
			f.lb("web-lb", elbtypes.LoadBalancerTypeEnumApplication)
			f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp)
			f.forward("http", "web-lb", elbtypes.ProtocolEnumHttp, 80, "web")
			f.register("web", "10.0.1.10")
		},
		input: health,
		want:  wantTargetHealth(elbtypes.TargetHealthStateEnumInitial, elbtypes.TargetHealthReasonEnumRegistrationInProgress, ""),
	}, {
		name: "a target not registered is unused with Target.NotRegistered", source: refTargetHealth,
		setup: func(f *elbFixture) { f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp) },
		input: func(f *elbFixture) any {
			return &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(f.arns["web"]),
				Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.1.11"), Port: aws.Int32(80)}}}
		},
		want: wantTargetHealth(elbtypes.TargetHealthStateEnumUnused, elbtypes.TargetHealthReasonEnumNotRegistered, ""),
	}, {
		name: "DescribeTargetHealth of an unknown group is TargetGroupNotFound", source: refTargetHealth,
		input: func(*elbFixture) any {
			return &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String("arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/none/0123456789abcdef")}
		},
		wantCode: "TargetGroupNotFound",
	}}
}

package conformance_test

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// API reference pages the cases cite.
const (
	refCreateListener    = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateListener.html"
	refCreateTargetGroup = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateTargetGroup.html"
	refTargetHealth      = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_TargetHealth.html"
	refLBAttribute       = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_LoadBalancerAttribute.html"
	refTGAttribute       = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_TargetGroupAttribute.html"
	refDescribeTGs       = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeTargetGroups.html"
	refDeleteTG          = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DeleteTargetGroup.html"
	refCreateRule        = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_CreateRule.html"
	refDescribeLBs       = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DescribeLoadBalancers.html"
	refDeleteListener    = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_DeleteListener.html"
	refRegisterTargets   = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_RegisterTargets.html"
	refModifyTG          = "https://docs.aws.amazon.com/elasticloadbalancing/latest/APIReference/API_ModifyTargetGroup.html"
	refALBasNLBTarget    = "https://docs.aws.amazon.com/elasticloadbalancing/latest/network/application-load-balancer-target.html"
	refTGHealth          = "https://docs.aws.amazon.com/elasticloadbalancing/latest/application/target-group-health.html"
)

// elbCase is one documented answer: the request (built after setup, which makes what it refers to), and either
// the error code AWS documents or a check of the successful output.
type elbCase struct {
	name     string
	source   string // where AWS documents the answer
	setup    func(f *elbFixture)
	input    func(f *elbFixture) any // an *elbv2.<Operation>Input
	wantCode string                  // "" when the call succeeds
	want     func(t *testing.T, f *elbFixture, out any)
}

func TestELBv2Conformance(t *testing.T) {
	var cases []elbCase
	cases = append(cases, elbListenerCases()...)
	cases = append(cases, elbTargetGroupCases()...)
	cases = append(cases, elbHealthCases()...)
	cases = append(cases, elbAttributeCases()...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newELBFixture(t)
			if c.setup != nil {
				c.setup(f)
			}
			in := c.input(f)
			out, err := elbCall(f.ctx, f.c, in)
			wantAnswer(t, in, err, c.wantCode, c.source)
			if c.want != nil {
				c.want(t, f, out)
			}
		})
	}
}

func elbListenerCases() []elbCase {
	albWithTG := func(f *elbFixture) {
		f.lb("web-lb", elbtypes.LoadBalancerTypeEnumApplication)
		f.tg("web", elbtypes.ProtocolEnumHttp, 80, elbtypes.TargetTypeEnumIp)
		f.forward("http", "web-lb", elbtypes.ProtocolEnumHttp, 80, "web")
	}
	return []elbCase{{
		name: "CreateListener with identical settings is idempotent", source: refCreateListener,
		setup: albWithTG,
		input: func(f *elbFixture) any {
			return forwardListener(f.arns["web-lb"], elbtypes.ProtocolEnumHttp, 80, f.arns["web"])
		},
		want: func(t *testing.T, f *elbFixture, out any) {
			if got := aws.ToString(out.(*elb.CreateListenerOutput).Listeners[0].ListenerArn); got != f.arns["http"] {
				t.Errorf("second CreateListener returned %s, want the existing listener %s", got, f.arns["http"])
			}
		},
	}, {
		name: "CreateListener on a used port with other settings is DuplicateListener", source: refCreateListener,
		setup: func(f *elbFixture) {
			albWithTG(f)
			f.tg("other", elbtypes.ProtocolEnumHttp, 8080, elbtypes.TargetTypeEnumIp)
		},
		input: func(f *elbFixture) any {
			return forwardListener(f.arns["web-lb"], elbtypes.ProtocolEnumHttp, 80, f.arns["other"])
		},
		wantCode: "DuplicateListener",
	}, {
		name: "CreateListener naming a missing target group is TargetGroupNotFound", source: refCreateListener,
		setup: func(f *elbFixture) { f.lb("web-lb", elbtypes.LoadBalancerTypeEnumApplication) },
		input: func(f *elbFixture) any {
			return forwardListener(f.arns["web-lb"], elbtypes.ProtocolEnumHttp, 80,
				"arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/none/0123456789abcdef")
		},
		wantCode: "TargetGroupNotFound",
	}, {
		name: "CreateRule with a priority in use is PriorityInUse", source: refCreateRule,
		setup: func(f *elbFixture) {
			albWithTG(f)
			_, err := f.c.CreateRule(f.ctx, pathRule(f, 10, "/a/*"))
			f.must(err, "CreateRule")
		},
		input:    func(f *elbFixture) any { return pathRule(f, 10, "/b/*") },
		wantCode: "PriorityInUse",
	}, {
		name: "DeleteListener of an unknown listener is ListenerNotFound", source: refDeleteListener,
		setup: albWithTG,
		input: func(f *elbFixture) any {
			return &elb.DeleteListenerInput{ListenerArn: aws.String(f.arns["http"] + "0")}
		},
		wantCode: "ListenerNotFound",
	}, {
		name: "an HTTPS listener with an issued certificate of the account's ACM", source: refCreateListener,
		setup: func(f *elbFixture) {
			albWithTG(f)
			c, err := f.srv.SeedCertificate(fakeaws.CertificateSeed{Domain: "www.example.com"})
			f.must(err, "SeedCertificate")
			f.arns["cert"] = c.ARN
		},
		input: func(f *elbFixture) any { return httpsListener(f, f.arns["cert"]) },
	}, {
		name: "an HTTPS listener with a never-created certificate of the account's region is CertificateNotFound", source: refCreateListener,
		setup: albWithTG,
		input: func(f *elbFixture) any {
			return httpsListener(f, "arn:aws:acm:"+testRegion+":"+testAccount+":certificate/0c1d2e3f-aaaa-bbbb-cccc-0123456789ab")
		},
		wantCode: "CertificateNotFound",
	}, {
		name: "an HTTPS listener with another region's certificate is CertificateNotFound", source: refCreateListener,
		setup: albWithTG,
		input: func(f *elbFixture) any {
			return httpsListener(f, "arn:aws:acm:eu-west-1:"+testAccount+":certificate/0c1d2e3f-aaaa-bbbb-cccc-0123456789ab")
		},
		wantCode: "CertificateNotFound",
	}, {
		name: "an HTTPS listener with a certificate ARN that is no certificate is CertificateNotFound", source: refCreateListener,
		setup: albWithTG,
		input: func(f *elbFixture) any {
			return httpsListener(f, "arn:aws:s3:::not-a-certificate")
		},
		wantCode: "CertificateNotFound",
	}, {
		name: "DescribeLoadBalancers of an unknown name is LoadBalancerNotFound", source: refDescribeLBs,
		input:    func(*elbFixture) any { return &elb.DescribeLoadBalancersInput{Names: []string{"none"}} },
		wantCode: "LoadBalancerNotFound",
	}}
}

func httpsListener(f *elbFixture, cert string) *elb.CreateListenerInput {
	in := forwardListener(f.arns["web-lb"], elbtypes.ProtocolEnumHttps, 443, f.arns["web"])
	in.Certificates = []elbtypes.Certificate{{CertificateArn: aws.String(cert)}}
	return in
}

func pathRule(f *elbFixture, priority int32, path string) *elb.CreateRuleInput {
	return &elb.CreateRuleInput{ListenerArn: aws.String(f.arns["http"]), Priority: aws.Int32(priority),
		Conditions: []elbtypes.RuleCondition{{Field: aws.String("path-pattern"), Values: []string{path}}},
		Actions:    []elbtypes.Action{{Type: elbtypes.ActionTypeEnumForward, TargetGroupArn: aws.String(f.arns["web"])}}}
}

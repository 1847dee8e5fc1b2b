package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"

	"github.com/restartsim/restartsim/fakeaws"
)

// elbFixture is a fresh fakeaws with an ELBv2 client; its helpers create what a case's input refers to and
// fail the test if AWS would have refused.
type elbFixture struct {
	t    *testing.T
	ctx  context.Context
	srv  *fakeaws.Server
	c    *elb.Client
	arns map[string]string // resources the setup made, by the name it gave them
}

func newELBFixture(t *testing.T) *elbFixture {
	srv, cfg := startServer(t)
	return &elbFixture{t: t, ctx: context.Background(), srv: srv, c: elb.NewFromConfig(cfg), arns: map[string]string{}}
}

func (f *elbFixture) must(err error, what string) {
	f.t.Helper()
	if err != nil {
		f.t.Fatalf("setup %s: %v", what, err)
	}
}

// subnets returns one default subnet per Availability Zone, as a load balancer needs.
func (f *elbFixture) subnets() []string {
	seen, out := map[string]bool{}, []string(nil)
	for _, sn := range f.srv.Subnets() {
		if sn.VPCID == f.srv.DefaultVPCID() && !seen[sn.AvailabilityZone] {
			seen[sn.AvailabilityZone] = true
			out = append(out, sn.ID)
		}
	}
	return out
}

// lb creates a load balancer of type typ (application or network) and records its ARN under name.
func (f *elbFixture) lb(name string, typ elbtypes.LoadBalancerTypeEnum) {
	f.t.Helper()
	out, err := f.c.CreateLoadBalancer(f.ctx, &elb.CreateLoadBalancerInput{Name: aws.String(name), Type: typ, Subnets: f.subnets()})
	f.must(err, "CreateLoadBalancer "+name)
	f.arns[name] = aws.ToString(out.LoadBalancers[0].LoadBalancerArn)
}

// tg creates a target group in the default VPC and records its ARN under name.
func (f *elbFixture) tg(name string, protocol elbtypes.ProtocolEnum, port int32, tt elbtypes.TargetTypeEnum) {
	f.t.Helper()
	out, err := f.c.CreateTargetGroup(f.ctx, &elb.CreateTargetGroupInput{Name: aws.String(name), Protocol: protocol,
		Port: aws.Int32(port), VpcId: aws.String(f.srv.DefaultVPCID()), TargetType: tt})
	f.must(err, "CreateTargetGroup "+name)
	f.arns[name] = aws.ToString(out.TargetGroups[0].TargetGroupArn)
}

// forward creates a listener of lb on port whose default action forwards to tg, recorded under name.
func (f *elbFixture) forward(name, lb string, protocol elbtypes.ProtocolEnum, port int32, tg string) {
	f.t.Helper()
	out, err := f.c.CreateListener(f.ctx, forwardListener(f.arns[lb], protocol, port, f.arns[tg]))
	f.must(err, "CreateListener "+name)
	f.arns[name] = aws.ToString(out.Listeners[0].ListenerArn)
}

func (f *elbFixture) register(tg string, ips ...string) {
	f.t.Helper()
	in := &elb.RegisterTargetsInput{TargetGroupArn: aws.String(f.arns[tg])}
	for _, ip := range ips {
		in.Targets = append(in.Targets, elbtypes.TargetDescription{Id: aws.String(ip)})
	}
	_, err := f.c.RegisterTargets(f.ctx, in)
	f.must(err, "RegisterTargets "+tg)
}

func forwardListener(lb string, protocol elbtypes.ProtocolEnum, port int32, tg string) *elb.CreateListenerInput {
	return &elb.CreateListenerInput{LoadBalancerArn: aws.String(lb), Protocol: protocol, Port: aws.Int32(port),
		DefaultActions: []elbtypes.Action{{Type: elbtypes.ActionTypeEnumForward, TargetGroupArn: aws.String(tg)}}}
}

// elbCall sends in, an ELBv2 request, with the operation its type names.
func elbCall(ctx context.Context, c *elb.Client, in any) (any, error) {
	switch in := in.(type) {
	case *elb.CreateListenerInput:
		return c.CreateListener(ctx, in)
	case *elb.CreateTargetGroupInput:
		return c.CreateTargetGroup(ctx, in)
	case *elb.CreateLoadBalancerInput:
		return c.CreateLoadBalancer(ctx, in)
	case *elb.CreateRuleInput:
		return c.CreateRule(ctx, in)
	case *elb.DescribeTargetGroupsInput:
		return c.DescribeTargetGroups(ctx, in)
	case *elb.DescribeLoadBalancersInput:
		return c.DescribeLoadBalancers(ctx, in)
	case *elb.DescribeTargetHealthInput:
		return c.DescribeTargetHealth(ctx, in)
	case *elb.DescribeLoadBalancerAttributesInput:
		return c.DescribeLoadBalancerAttributes(ctx, in)
	case *elb.ModifyLoadBalancerAttributesInput:
		return c.ModifyLoadBalancerAttributes(ctx, in)
	case *elb.DescribeTargetGroupAttributesInput:
		return c.DescribeTargetGroupAttributes(ctx, in)
	case *elb.ModifyTargetGroupAttributesInput:
		return c.ModifyTargetGroupAttributes(ctx, in)
	case *elb.DeleteTargetGroupInput:
		return c.DeleteTargetGroup(ctx, in)
	case *elb.DeleteListenerInput:
		return c.DeleteListener(ctx, in)
	case *elb.RegisterTargetsInput:
		return c.RegisterTargets(ctx, in)
	case *elb.ModifyTargetGroupInput:
		return c.ModifyTargetGroup(ctx, in)
	}
	return nil, fmt.Errorf("no ELBv2 operation takes %T", in)
}

// opName is the operation a request type belongs to: *elbv2.CreateListenerInput is CreateListener.
func opName(in any) string {
	return strings.TrimSuffix(reflect.TypeOf(in).Elem().Name(), "Input")
}

// wantAnswer fails t unless the call of in ended with the documented error code ("" for success).
func wantAnswer(t *testing.T, in any, err error, wantCode, source string) {
	t.Helper()
	if got := errorCode(err); got != wantCode || (wantCode == "" && err != nil) {
		t.Fatalf("%s: error %v (code %q), want code %q (documented at %s)", opName(in), err, got, wantCode, source)
	}
}

func errorCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	return ""
}

func lbAttrs(as []elbtypes.LoadBalancerAttribute) map[string]string {
	out := map[string]string{}
	for _, a := range as {
		out[aws.ToString(a.Key)] = aws.ToString(a.Value)
	}
	return out
}

func tgAttrs(as []elbtypes.TargetGroupAttribute) map[string]string {
	out := map[string]string{}
	for _, a := range as {
		out[aws.ToString(a.Key)] = aws.ToString(a.Value)
	}
	return out
}

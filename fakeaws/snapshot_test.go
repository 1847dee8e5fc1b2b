package fakeaws_test

import (
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestSnapshotRestore: a server started From a snapshot serves the resources of that moment over the
// wire, the servers evolve independently afterwards, and a copy never mints an ID the original had
// handed out before the snapshot.
func TestSnapshotRestore(t *testing.T) {
	a := newEnv(t, fakeaws.Options{})
	arn := a.createTG(t, "snap", "ip", 80)
	register(t, a, arn, "10.0.1.1")
	snap, err := a.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	register(t, a, arn, "10.0.1.2") // after the snapshot: not in the copy

	b := newEnv(t, fakeaws.Options{From: snap})
	if got := targetIDs(t, b, arn); len(got) != 1 || got[0] != "10.0.1.1" {
		t.Fatalf("restored targets = %v, want [10.0.1.1]", got)
	}
	register(t, b, arn, "10.0.1.3")
	if got := targetIDs(t, a, arn); len(got) != 2 {
		t.Fatalf("original changed by the copy: targets %v", got)
	}
	if b.srv.Options().From != snap {
		t.Fatal("options lost the snapshot")
	}
	before := map[string]bool{}
	for _, sg := range a.srv.SecurityGroups() {
		before[sg.ID] = true
	}
	for _, tg := range a.srv.TargetGroups() {
		before[tg.ARN] = true
	}
	arn2 := b.createTG(t, "snap-2", "ip", 80)
	if before[arn2] {
		t.Fatalf("copy minted an existing ARN %s", arn2)
	}

	c := newEnv(t, fakeaws.Options{From: snap}) // a snapshot can seed several servers
	if got := targetIDs(t, c, arn); len(got) != 1 {
		t.Fatalf("second restore: targets %v", got)
	}
}

// TestSnapshotIndexes: a restored server finds resources by name and by IP (its indexes came along), and
// deleting a group in the copy frees the name there only.
func TestSnapshotIndexes(t *testing.T) {
	a := newEnv(t, fakeaws.Options{})
	arn := a.createTG(t, "snap", "ip", 80)
	must[fakeaws.ENI](t)(a.srv.SeedENI(fakeaws.ENI{ID: "eni-pod", PrivateIPs: []string{"10.0.5.1"}}))
	snap, err := a.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := newEnv(t, fakeaws.Options{From: snap})
	if got := b.createTG(t, "snap", "ip", 80); got != arn {
		t.Fatalf("create by an existing name in the copy: ARN %s, want %s", got, arn)
	}
	byName := must[*elb.DescribeTargetGroupsOutput](t)(b.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Names: []string{"snap"}}))
	if aws.ToString(byName.TargetGroups[0].TargetGroupArn) != arn {
		t.Fatalf("by name: %v", byName.TargetGroups)
	}
	enis := must[*ec2.DescribeNetworkInterfacesOutput](t)(b.ec2.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{
		Filters: []ec2types.Filter{{Name: aws.String("addresses.private-ip-address"), Values: []string{"10.0.5.1"}}}}))
	if len(enis.NetworkInterfaces) != 1 || aws.ToString(enis.NetworkInterfaces[0].NetworkInterfaceId) != "eni-pod" {
		t.Fatalf("by IP: %+v", enis.NetworkInterfaces)
	}
	if _, err := b.elb.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: aws.String(arn)}); err != nil {
		t.Fatal(err)
	}
	if got := b.createTG(t, "snap", "ip", 81); got == arn {
		t.Fatal("the copy's deleted group came back")
	}
	if got := a.createTG(t, "snap", "ip", 80); got != arn {
		t.Fatalf("the copy's delete reached the original: ARN %s", got)
	}
}

func TestSnapshotOtherAccountRefused(t *testing.T) {
	a := newEnv(t, fakeaws.Options{})
	snap, err := a.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fakeaws.New(fakeaws.Options{From: snap, AccountID: "210987654321"}); err == nil {
		t.Fatal("a snapshot of another account was accepted")
	}
}

func register(t *testing.T, e *env, arn, ip string) {
	t.Helper()
	_, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn),
		Targets: []elbtypes.TargetDescription{{Id: aws.String(ip), Port: aws.Int32(8080)}}})
	if err != nil {
		t.Fatal(err)
	}
}

func targetIDs(t *testing.T, e *env, arn string) []string {
	t.Helper()
	out, err := e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, d := range out.TargetHealthDescriptions {
		ids = append(ids, aws.ToString(d.Target.Id))
	}
	return ids
}

// TestSnapshotClockContinues: a restored server's scenario time starts at the snapshot's, so a target
// that was healthy when copied is healthy in the copy, even on a clock that starts earlier.
func TestSnapshotClockContinues(t *testing.T) {
	a := newEnv(t, fakeaws.Options{HealthyAfter: 10 * time.Second})
	arn := a.createTG(t, "clock", "ip", 80)
	a.useTG(t, "clock", arn)
	register(t, a, arn, "10.0.1.1")
	a.clock.Step(time.Minute)
	snap, err := a.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := newEnv(t, fakeaws.Options{HealthyAfter: 10 * time.Second, From: snap}) // its fake clock starts at t0 again
	if got, want := b.srv.Now(), a.srv.Now(); !got.Equal(want) {
		t.Fatalf("restored clock at %v, snapshot taken at %v", got, want)
	}
	ths, err := b.srv.Targets(arn)
	if err != nil || len(ths) != 1 || ths[0].State != fakeaws.HealthHealthy {
		t.Fatalf("restored target: %+v, %v; want healthy", ths, err)
	}
	b.clock.Step(time.Second)
	if got := b.srv.Now().Sub(a.srv.Now()); got != time.Second {
		t.Fatalf("restored clock moved %v for 1s", got)
	}
}

// TestSnapshotLoadBalancers: load balancers, listeners, rules, subnets and the target group associations come
// along in a snapshot, and the copy's changes stay in the copy.
func TestSnapshotLoadBalancers(t *testing.T) {
	a := newEnv(t, fakeaws.Options{})
	lb := aws.ToString(a.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	tg := a.createTG(t, "web-tg", "ip", 80)
	l := a.createListener(t, lb, 80, forwardTo(tg))
	rule := must[*elb.CreateRuleOutput](t)(a.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l.ListenerArn, Priority: aws.Int32(3),
		Conditions: hostRule("a.example.com"), Actions: forwardTo(tg)})).Rules[0]
	snap := must[*fakeaws.Snapshot](t)(a.srv.Snapshot())

	b := newEnv(t, fakeaws.Options{From: snap})
	rules := must[*elb.DescribeRulesOutput](t)(b.elb.DescribeRules(ctx, &elb.DescribeRulesInput{ListenerArn: l.ListenerArn}))
	if len(rules.Rules) != 2 || aws.ToString(rules.Rules[0].RuleArn) != aws.ToString(rule.RuleArn) || rules.Rules[0].Conditions[0].Values[0] != "a.example.com" {
		t.Fatalf("restored rules %+v", rules.Rules)
	}
	tgs := must[*elb.DescribeTargetGroupsOutput](t)(b.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tg}}))
	if len(tgs.TargetGroups[0].LoadBalancerArns) != 1 {
		t.Fatal("restored target group lost its load balancer")
	}
	if got := len(b.defaultSubnets(t)); got != 3 {
		t.Fatalf("restored subnets %d", got)
	}
	// The restored load balancer is as old as the original: active, since its provisioning delay has passed.
	a.clock.Step(time.Minute)
	snap2 := must[*fakeaws.Snapshot](t)(a.srv.Snapshot())
	c := newEnv(t, fakeaws.Options{From: snap2})
	d := must[*elb.DescribeLoadBalancersOutput](t)(c.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{lb}}))
	if d.LoadBalancers[0].State.Code != elbtypes.LoadBalancerStateEnumActive {
		t.Fatalf("restored state %s", d.LoadBalancers[0].State.Code)
	}
	must[*elb.DeleteLoadBalancerOutput](t)(b.elb.DeleteLoadBalancer(ctx, &elb.DeleteLoadBalancerInput{LoadBalancerArn: aws.String(lb)}))
	if len(b.srv.LoadBalancers()) != 0 || len(a.srv.LoadBalancers()) != 1 {
		t.Fatal("deleting in the copy changed the original")
	}
	if _, err := a.elb.DeleteRule(ctx, &elb.DeleteRuleInput{RuleArn: rule.RuleArn}); err != nil {
		t.Fatalf("the original lost its rule: %v", err)
	}
}

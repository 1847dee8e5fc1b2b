package lbdeploy_test

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"

	"github.com/restartsim/restartsim/controller/lbdeploy"
)

// shopIn is the shop Ingress in namespace ns: another stack with its own load balancer and target groups.
func shopIn(ns string) *shop {
	s := newShop()
	s.ing.Namespace = ns
	for i := range s.services {
		s.services[i].Namespace = ns
	}
	return s
}

func TestRedeployCostDoesNotGrowWithOtherStacks(t *testing.T) {
	e := newEnv(t)
	st := newShop().stack(t)
	e.deploy(t, st)
	e.deploy(t, shopIn("other-0").stack(t))
	n := e.srv.Recorder().Len()
	e.deploy(t, st)
	alone := e.operations(n)
	for i := 1; i < 30; i++ {
		e.deploy(t, shopIn("other-"+strconv.Itoa(i)).stack(t))
	}
	n = e.srv.Recorder().Len()
	e.deploy(t, st)
	among := e.operations(n)
	if !reflect.DeepEqual(among, alone) {
		t.Fatalf("redeploy among 30 other stacks called %v, among 1 called %v", among, alone)
	}
	want := map[string]int{"DescribeLoadBalancers": 1, "DescribeTargetGroups": 1, "DescribeTags": 1}
	for op, c := range want {
		if got := count(among, op); got != c {
			t.Fatalf("redeploy called %s %d times, want %d (%v)", op, got, c, among)
		}
	}
	if len(e.srv.LoadBalancers()) != 31 || len(e.srv.TargetGroups()) != 62 {
		t.Fatalf("%d load balancers and %d target groups, want 31 and 62", len(e.srv.LoadBalancers()), len(e.srv.TargetGroups()))
	}
}

func TestReplacedTargetGroupIsDeletedAmongOtherStacks(t *testing.T) {
	e := newEnv(t)
	s := newShop()
	e.deploy(t, s.stack(t))
	for i := range 5 {
		e.deploy(t, shopIn("other-"+strconv.Itoa(i)).stack(t))
	}
	s.services[0].Spec.Ports[0].TargetPort.IntVal = 8081 // the cart target group's port, so its name, changes
	n := e.srv.Recorder().Len()
	e.deploy(t, s.stack(t))
	ops := e.operations(n)
	// The other stacks' target groups are all in use, so only the stack's own tags are read.
	if count(ops, "CreateTargetGroup") != 1 || count(ops, "DeleteTargetGroup") != 1 || count(ops, "DescribeTags") != 1 {
		t.Fatalf("target group replacement called %v, want one create, one delete and one DescribeTags", ops)
	}
	if got := len(e.srv.TargetGroups()); got != 12 {
		t.Fatalf("%d target groups after the replacement, want 12", got)
	}
}

// failingRuleChange is the real client except that rules cannot be changed: a controller that dies after
// creating a replacement target group and before forwarding to it.
type failingRuleChange struct{ *elbv2.Client }

func (failingRuleChange) ModifyRule(context.Context, *elbv2.ModifyRuleInput, ...func(*elbv2.Options)) (*elbv2.ModifyRuleOutput, error) {
	return nil, errors.New("connection reset")
}

func TestTargetGroupLeftByAnInterruptedDeployIsDeletedLater(t *testing.T) {
	e := newEnv(t)
	s := newShop()
	e.deploy(t, s.stack(t))
	broken, err := lbdeploy.New(lbdeploy.Config{ClusterName: cluster, VpcID: e.srv.DefaultVPCID(), ELB: failingRuleChange{e.elb}, EC2: e.ec2})
	if err != nil {
		t.Fatal(err)
	}
	s.services[0].Spec.Ports[0].TargetPort.IntVal = 8081
	if _, err := broken.Deploy(ctx, s.stack(t)); err == nil {
		t.Fatal("want the injected ModifyRule failure")
	}
	if got := len(e.srv.TargetGroups()); got != 3 {
		t.Fatalf("%d target groups after the interrupted deploy, want 3 (the new one unused)", got)
	}
	// The model changes again before the retry: nothing names the unused target group any more.
	s.services[0].Spec.Ports[0].TargetPort.IntVal = 8082
	e.deploy(t, s.stack(t))
	if got := len(e.srv.TargetGroups()); got != 2 {
		t.Fatalf("%d target groups left, want the 2 of the model (the unused one deleted)", got)
	}
}

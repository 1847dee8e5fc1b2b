package lbdeploy_test

import (
	"context"
	"errors"
	"testing"

	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/restartsim/restartsim/controller/lbdeploy"
	"github.com/restartsim/restartsim/controller/lbmodel"
)

// failingCreate is the real client except that CreateLoadBalancer fails: a controller that dies mid-deploy.
type failingCreate struct{ *elbv2.Client }

func (failingCreate) CreateLoadBalancer(context.Context, *elbv2.CreateLoadBalancerInput, ...func(*elbv2.Options)) (*elbv2.CreateLoadBalancerOutput, error) {
	return nil, errors.New("connection reset")
}

func TestAnInterruptedDeployIsFinishedWithoutDuplicates(t *testing.T) {
	e := newEnv(t)
	st := newShop().stack(t)
	broken, err := lbdeploy.New(lbdeploy.Config{ClusterName: cluster, VpcID: e.srv.DefaultVPCID(), ELB: failingCreate{e.elb}, EC2: e.ec2})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := broken.Deploy(ctx, st); err == nil {
		t.Fatal("want the injected CreateLoadBalancer failure")
	}
	if n := len(e.srv.TargetGroups()); n != 2 {
		t.Fatalf("%d target groups before the failure, want 2", n)
	}
	n := e.srv.Recorder().Len()
	res := e.deploy(t, st) // the restarted controller: it finds the target groups by their tags
	ops := e.operations(n)
	if count(ops, "CreateTargetGroup") != 0 || count(ops, "CreateLoadBalancer") != 1 || len(e.srv.TargetGroups()) != 2 || len(res.TargetGroupARNs) != 2 {
		t.Fatalf("resumed deploy called %v and left %d target groups", mutations(ops), len(e.srv.TargetGroups()))
	}
}

func TestAGroupSharesOneLoadBalancer(t *testing.T) {
	e := newEnv(t)
	a, b := newShop(), newShop()
	b.ing.Name = "admin"
	b.ing.Spec.Rules[0].Host = "admin.example.com"
	for _, s := range []*shop{a, b} {
		s.ing.Annotations[lbmodel.AnnotationGroupName] = "storefront"
	}
	groups, err := lbmodel.GroupIngresses([]networkingv1.Ingress{b.ing, a.ing})
	if err != nil || len(groups) != 1 {
		t.Fatalf("groups = %+v (%v)", groups, err)
	}
	st, _, err := lbmodel.BuildIngress(lbmodel.IngressInput{ClusterName: cluster, Group: groups[0], Services: a.services})
	if err != nil {
		t.Fatal(err)
	}
	res := e.deploy(t, st)
	ls, _ := e.srv.Listeners(res.LoadBalancerARN)
	if len(e.srv.LoadBalancers()) != 1 || len(ls) != 1 || len(nonDefaultRules(t, e, ls[0].ARN)) != 4 || len(res.TargetGroupARNs) != 4 {
		t.Fatalf("group deploy: %d load balancers, %d listeners, %d target groups", len(e.srv.LoadBalancers()), len(ls), len(res.TargetGroupARNs))
	}
	if first := nonDefaultRules(t, e, ls[0].ARN)[0]; first.Conditions[0].Values[0] != "admin.example.com" {
		t.Fatalf("priority 1 is %v, want the admin Ingress (shop/admin sorts before shop/web)", first.Conditions)
	}
}

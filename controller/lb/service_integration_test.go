package lb_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/controller/lb"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/internal/testwait"
)

// deployNLB turns Service echo into an NLB Service and waits until its stack is deployed: a network
// load balancer named in the Service's status, a TCP listener and a bound TargetGroupBinding.
func deployNLB(t *testing.T, ns string, opts controller.Options) (*running, lbmodel.StackID) {
	t.Helper()
	want := targetKeys(backend(t, ns, "echo", 3, 2))
	r := startController(t, ns, opts)
	ctx := context.Background()
	svc := &corev1.Service{}
	if err := k8s.Get(ctx, clientKey(ns, "echo"), svc); err != nil {
		t.Fatal(err)
	}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	svc.Annotations = map[string]string{lbmodel.AnnotationLBType: "external", lbmodel.AnnotationNLBTargetType: "ip"}
	if err := k8s.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 60*time.Second, "the NLB deployed", func() bool {
		if err := k8s.Get(ctx, clientKey(ns, "echo"), svc); err != nil {
			return false
		}
		lbs := svc.Status.LoadBalancer.Ingress
		return len(lbs) == 1 && lbs[0].Hostname != "" && svc.Annotations[lb.ModelCheckpointAnnotation] != ""
	})
	lbs := clusterLoadBalancers(opts.ClusterName)
	if len(lbs) != 1 || lbs[0].Type != lbmodel.TypeNetwork || lbs[0].DNSName != svc.Status.LoadBalancer.Ingress[0].Hostname {
		t.Fatalf("load balancers = %+v, want one NLB named in the Service's status", lbs)
	}
	if ls, err := aws_.Listeners(lbs[0].ARN); err != nil || len(ls) != 1 || ls[0].Protocol != "TCP" || ls[0].Port != 80 {
		t.Fatalf("listeners = %+v (%v), want TCP:80", ls, err)
	}
	id := lbmodel.StackID{Kind: lbmodel.KindService, Name: ns + "/echo"}
	tgbs := stackTGBs(t, ns, id)
	if len(tgbs) != 1 {
		t.Fatalf("bindings of the Service stack = %d, want 1", len(tgbs))
	}
	arn := tgbs[0].Spec.TargetGroupARN
	testwait.Until(t, 30*time.Second, "the NLB's targets registered", func() bool { return sameSet(liveTargets(t, arn), want...) })
	return r, id
}

// stackGone reports whether the Service stack has no binding and the cluster no load balancer or
// target group left.
func stackGone(t *testing.T, ns string, id lbmodel.StackID, cluster string) bool {
	return len(stackTGBs(t, ns, id)) == 0 && len(clusterLoadBalancers(cluster)) == 0 && len(clusterTargetGroups(cluster)) == 0
}

// TestLBServiceNLB: an NLB Service is deployed; a restart with the model checkpoint skips it without
// an AWS call; deleting it deletes the stack before the finalizer goes.
func TestLBServiceNLB(t *testing.T) {
	ns := newNamespace(t)
	opts := lbTestOptions(ns, controller.ModelCheckpointModel)
	first, id := deployNLB(t, ns, opts)
	first.stop()
	n := aws_.Recorder().Len()
	r := startController(t, ns, opts)
	testwait.Until(t, 30*time.Second, "the Service's checkpoint skip", func() bool {
		return counter(t, r.reg, "lb_model_checkpoint_skips_total", map[string]string{"kind": "service"}) >= 1
	})
	waitStackBindingsReconciled(t, r, ns, id)
	if ops := loadBalancerOperations(operationsSince(n)); len(ops) > 0 {
		t.Fatalf("restart of an unchanged NLB Service called AWS: %v", ops)
	}
	ctx := context.Background()
	if err := k8s.Delete(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "echo"}}); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, "the NLB stack deleted", func() bool {
		return k8s.Get(ctx, clientKey(ns, "echo"), &corev1.Service{}) != nil && stackGone(t, ns, id, opts.ClusterName)
	})
}

// TestLBServiceNoLongerNLB: a Service that drops the load balancer type annotation loses its stack,
// its finalizer, its checkpoint and its status address, and stays.
func TestLBServiceNoLongerNLB(t *testing.T) {
	ns := newNamespace(t)
	opts := lbTestOptions(ns, controller.ModelCheckpointModel)
	_, id := deployNLB(t, ns, opts)
	ctx := context.Background()
	svc := &corev1.Service{}
	if err := k8s.Get(ctx, clientKey(ns, "echo"), svc); err != nil {
		t.Fatal(err)
	}
	delete(svc.Annotations, lbmodel.AnnotationLBType)
	if err := k8s.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, "the Service released", func() bool {
		if err := k8s.Get(ctx, clientKey(ns, "echo"), svc); err != nil {
			return false
		}
		return len(svc.Finalizers) == 0 && svc.Annotations[lb.ModelCheckpointAnnotation] == "" &&
			len(svc.Status.LoadBalancer.Ingress) == 0 && stackGone(t, ns, id, opts.ClusterName)
	})
}

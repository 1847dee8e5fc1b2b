package controller

import (
	"context"
	"fmt"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

func TestEndpointChangesRegisterExactlyTheDifference(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	eps := backend(t, ns, "web", 1, 3)
	create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	r := startController(t, ns, testOptions(CheckpointAnnotation))
	testwait.Until(t, 10*time.Second, "initial registration", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
	testwait.Until(t, 5*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })

	// Replace pod 0 by pod 3.
	p3 := mkPod(ns, "web-3")
	create(t, p3)
	setContainersReady(t, p3, true)
	next := []epRef{eps[1], eps[2], {pod: "web-3", ip: "10.0.1.4", ready: true}}
	since := aws_.Recorder().Len()
	setSliceEndpoints(t, ns, "web-slice", next...)
	testwait.Until(t, 10*time.Second, "re-registration", func() bool { return sameSet(liveTargets(t, arn), targetKeys(next)...) })
	var reg, dereg []fakeaws.Target
	for _, c := range callsFor(since, arn) {
		switch c.Operation {
		case "RegisterTargets":
			reg = append(reg, c.Targets...)
		case "DeregisterTargets":
			dereg = append(dereg, c.Targets...)
		}
	}
	if len(reg) != 1 || reg[0].ID != "10.0.1.4" || reg[0].Port != 8080 {
		t.Fatalf("registered %v, want only 10.0.1.4:8080", reg)
	}
	if len(dereg) != 1 || dereg[0].ID != eps[0].ip {
		t.Fatalf("deregistered %v, want only %s", dereg, eps[0].ip)
	}
	tgb := getTGB(t, ns, "web")
	if tgb.Status.ObservedGeneration == nil || *tgb.Status.ObservedGeneration != tgb.Generation {
		t.Fatalf("observedGeneration %v, generation %d", tgb.Status.ObservedGeneration, tgb.Generation)
	}
	if len(tgb.Finalizers) != 1 || tgb.Finalizers[0] != FinalizerName {
		t.Fatalf("finalizers %v", tgb.Finalizers)
	}
	_ = r
}

func TestInstanceTargets(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumInstance)
	create(t, mkService(ns, "web", 30080))
	var want []string
	for i, n := range []struct {
		pool  string
		ready bool
	}{{"web", true}, {"web", true}, {"batch", true}, {"web", false}} {
		id := createNode(t, ns, i, n.pool, n.ready)
		if n.pool == "web" && n.ready {
			want = append(want, id+":30080")
		}
	}
	create(t, mkInstanceTGB(ns, "web", arn))
	startController(t, ns, testOptions(CheckpointCompact))
	testwait.Until(t, 10*time.Second, "instance targets "+fmt.Sprint(want), func() bool { return sameSet(liveTargets(t, arn), want...) })

	// A node turning ready joins.
	setNodeReady(t, ns+"-n3", corev1.ConditionTrue)
	want = append(want, fmt.Sprintf("i-%08x%d:30080", nsSeq.Load(), 3))
	testwait.Until(t, 10*time.Second, "node 3 registered", func() bool { return sameSet(liveTargets(t, arn), want...) })
}

// createNode creates node <ns>-n<i> in pool (labels pool and test=ns) with an EC2 instance behind
// it and the given readiness; it returns the instance ID.
func createNode(t *testing.T, ns string, i int, pool string, ready bool) string {
	t.Helper()
	id := fmt.Sprintf("i-%08x%d", nsSeq.Load(), i)
	ip := int(nsSeq.Load())*8 + i // unique per test namespace, from 10.0.200.0 on
	if _, err := aws_.SeedInstance(fakeaws.Instance{ID: id, PrivateIP: fmt.Sprintf("10.0.%d.%d", 200+ip/256, ip%256)}); err != nil {
		t.Fatal(err)
	}
	name := ns + fmt.Sprintf("-n%d", i)
	create(t, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"pool": pool, "test": ns}},
		Spec: corev1.NodeSpec{ProviderID: "aws:///us-west-2a/" + id}})
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	setNodeReady(t, name, st)
	return id
}

// setNodeReady sets the node's Ready condition (a transition if it changes) and heartbeat.
func setNodeReady(t *testing.T, name string, st corev1.ConditionStatus) {
	t.Helper()
	node := &corev1.Node{}
	if err := k8s.Get(context.Background(), clientKey("", name), node); err != nil {
		t.Fatal(err)
	}
	cond := corev1.NodeCondition{Type: corev1.NodeReady, Status: st, LastTransitionTime: metav1.Now()}
	if len(node.Status.Conditions) > 0 && node.Status.Conditions[0].Status == st {
		cond.LastTransitionTime = node.Status.Conditions[0].LastTransitionTime
	}
	cond.LastHeartbeatTime = metav1.Now()
	node.Status.Conditions = []corev1.NodeCondition{cond}
	if err := k8s.Status().Update(context.Background(), node); err != nil {
		t.Fatal(err)
	}
}

// mkInstanceTGB is an instance binding of Service svc's nodes in pool "web" of test namespace ns.
func mkInstanceTGB(ns, svc, arn string) *v1beta1.TargetGroupBinding {
	tgb := mkTGB(ns, svc, svc, arn, v1beta1.TargetTypeInstance)
	tgb.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"pool": "web", "test": ns}}
	return tgb
}

func TestRegistrationChunksOf200(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	eps := backend(t, ns, "big", 10, 210)
	since := aws_.Recorder().Len()
	create(t, mkTGB(ns, "big", "big", arn, v1beta1.TargetTypeIP))
	startController(t, ns, testOptions(CheckpointNone))
	testwait.Until(t, 15*time.Second, "210 targets", func() bool { return len(liveTargets(t, arn)) == len(eps) })
	var sizes []int
	for _, c := range callsFor(since, arn) {
		if c.Operation == "RegisterTargets" {
			sizes = append(sizes, len(c.Targets))
		}
	}
	if len(sizes) != 2 || sizes[0] != 200 || sizes[1] != 10 {
		t.Fatalf("RegisterTargets sizes %v, want [200 10]", sizes)
	}
	if _, ok := getTGB(t, ns, "big").Annotations[checkpoint.AnnotationCheckpoint]; ok {
		t.Fatal("checkpoint=none wrote a checkpoint")
	}
}

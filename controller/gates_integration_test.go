package controller

import (
	"context"
	"fmt"
	"sort"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/networking"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

func gateStatus(t *testing.T, ns, pod, tgb string) corev1.ConditionStatus {
	t.Helper()
	p := &corev1.Pod{}
	if err := k8s.Get(context.Background(), clientKey(ns, pod), p); err != nil {
		t.Fatal(err)
	}
	c, ok := readinessgate.Condition(p, readinessgate.ConditionType(tgb))
	if !ok {
		return ""
	}
	return c.Status
}

// TestReadinessGateContainerRestart: a container restart keeps the pod object; its target is
// deregistered and registered again, and the gate goes False, then back to True.
func TestReadinessGateContainerRestart(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	gate := string(readinessgate.ConditionType("web"))
	eps := backend(t, ns, "web", 60, 1, gate)
	notReady := []epRef{{pod: eps[0].pod, ip: eps[0].ip, ready: false}}
	setSliceEndpoints(t, ns, "web-slice", notReady...) // held back only by the gate
	create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	startController(t, ns, testOptions(CheckpointAnnotation))
	testwait.Until(t, 10*time.Second, "gate True", func() bool { return gateStatus(t, ns, eps[0].pod, "web") == corev1.ConditionTrue })
	setSliceEndpoints(t, ns, "web-slice", eps...) // the pod is Ready now
	testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })

	// The container restarts: containers not ready, endpoint not ready.
	pod := mkPod(ns, eps[0].pod)
	setContainersReady(t, pod, false)
	setSliceEndpoints(t, ns, "web-slice", notReady...)
	testwait.Until(t, 10*time.Second, "target deregistered", func() bool { return len(liveTargets(t, arn)) == 0 })
	testwait.Until(t, 10*time.Second, "gate False", func() bool { return gateStatus(t, ns, eps[0].pod, "web") == corev1.ConditionFalse })

	// The container is back; the pod is still not Ready (gate False), so the endpoint stays not ready.
	setContainersReady(t, pod, true)
	testwait.Until(t, 10*time.Second, "target registered again", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
	testwait.Until(t, 10*time.Second, "gate True again", func() bool { return gateStatus(t, ns, eps[0].pod, "web") == corev1.ConditionTrue })
	testwait.Until(t, 10*time.Second, "checkpoint saved", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
}

// TestBackendServiceRecreated is upstream #4343: Service deleted, then recreated with the same
// endpoints: the targets are registered again.
func TestBackendServiceRecreated(t *testing.T) {
	ns := newNamespace(t)
	ctx := context.Background()
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	eps := backend(t, ns, "web", 70, 2)
	create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	startController(t, ns, testOptions(CheckpointAnnotation))
	testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
	if err := k8s.Delete(ctx, mkService(ns, "web", 0)); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 10*time.Second, "targets deregistered", func() bool { return len(liveTargets(t, arn)) == 0 })
	testwait.Until(t, 10*time.Second, "checkpoint reset", func() bool { return !checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
	create(t, mkService(ns, "web", 0))
	testwait.Until(t, 10*time.Second, "targets registered again", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
}

func ownedRules(t *testing.T, sgID string) []string {
	t.Helper()
	sg, err := aws_.SecurityGroup(sgID)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range sg.Ingress {
		if r.Description == networking.RuleDescription {
			out = append(out, fmt.Sprintf("%s/%d/%s", r.Protocol, r.FromPort, r.CIDR))
		}
	}
	sort.Strings(out)
	return out
}

func ingress(ports ...int32) *v1beta1.TargetGroupBindingNetworking {
	n := &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
		From: []v1beta1.NetworkingPeer{{IPBlock: &v1beta1.IPBlock{CIDR: "10.1.0.0/16"}}}}}}
	for _, p := range ports {
		n.Ingress[0].Ports = append(n.Ingress[0].Ports, v1beta1.NetworkingPort{Protocol: ptr.To(v1beta1.NetworkingProtocolTCP), Port: ptr.To(intstr.FromInt32(p))})
	}
	return n
}

// TestSharedSecurityGroup: two bindings share the pods' security group; deleting one revokes only
// the rules no other binding wants.
func TestSharedSecurityGroup(t *testing.T) {
	ns := newNamespace(t)
	ctx := context.Background()
	sg, err := aws_.CreateSecurityGroup("pods-"+ns, "pods", aws_.DefaultVPCID())
	if err != nil {
		t.Fatal(err)
	}
	arnA := createTargetGroup(t, ns+"-a", elbtypes.TargetTypeEnumIp)
	arnB := createTargetGroup(t, ns+"-b", elbtypes.TargetTypeEnumIp)
	epsA := backend(t, ns, "a", 80, 2)
	epsB := backend(t, ns, "b", 81, 2)
	for i, e := range append(epsA, epsB...) {
		if _, err := aws_.SeedENI(fakeaws.ENI{ID: fmt.Sprintf("eni-%08x%02d", nsSeq.Load(), i), PrivateIPs: []string{e.ip}, SecurityGroupIDs: []string{sg.ID}}); err != nil {
			t.Fatal(err)
		}
	}
	a := mkTGB(ns, "a", "a", arnA, v1beta1.TargetTypeIP)
	a.Spec.Networking = ingress(80, 8080)
	b := mkTGB(ns, "b", "b", arnB, v1beta1.TargetTypeIP)
	b.Spec.Networking = ingress(80, 9090)
	create(t, a, b)
	startController(t, ns, testOptions(CheckpointAnnotation))
	want := []string{"tcp/80/10.1.0.0/16", "tcp/8080/10.1.0.0/16", "tcp/9090/10.1.0.0/16"}
	testwait.Until(t, 10*time.Second, fmt.Sprintf("rules %v", want), func() bool { return fmt.Sprint(ownedRules(t, sg.ID)) == fmt.Sprint(want) })
	testwait.Until(t, 10*time.Second, "b registered", func() bool { return sameSet(liveTargets(t, arnB), targetKeys(epsB)...) })

	if err := k8s.Delete(ctx, getTGB(t, ns, "a")); err != nil {
		t.Fatal(err)
	}
	want = []string{"tcp/80/10.1.0.0/16", "tcp/9090/10.1.0.0/16"}
	testwait.Until(t, 10*time.Second, fmt.Sprintf("rules %v", want), func() bool { return fmt.Sprint(ownedRules(t, sg.ID)) == fmt.Sprint(want) })
	testwait.Until(t, 10*time.Second, "a deregistered", func() bool { return len(liveTargets(t, arnA)) == 0 })
	if !sameSet(liveTargets(t, arnB), targetKeys(epsB)...) {
		t.Fatal("b's targets changed")
	}
}

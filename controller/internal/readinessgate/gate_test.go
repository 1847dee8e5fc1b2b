package readinessgate

import (
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/restartsim/restartsim/controller/internal/targets"
)

func TestGates(t *testing.T) {
	ct := ConditionType("web")
	pod := &corev1.Pod{
		Spec: corev1.PodSpec{ReadinessGates: []corev1.PodReadinessGate{{ConditionType: ct}, {ConditionType: "other/x"}}},
		Status: corev1.PodStatus{Conditions: []corev1.PodCondition{
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue},
			{Type: ct, Status: corev1.ConditionFalse},
		}},
	}
	if !HasGate(pod, ct) || HasGate(pod, ConditionType("api")) {
		t.Fatal("HasGate")
	}
	if names := TGBNames(pod); len(names) != 1 || names[0] != "web" {
		t.Fatalf("TGBNames %v", names)
	}
	if !ContainersReady(pod) || !PresentNotTrue(pod, ct) || PresentNotTrue(pod, ConditionType("api")) {
		t.Fatal("conditions")
	}
	if c := Desired(ct, nil); c.Status != corev1.ConditionFalse || c.Reason != ReasonRegistrationInProgress {
		t.Fatalf("nil health: %+v", c)
	}
	if c := Desired(ct, &targets.Health{State: targets.StateHealthy}); c.Status != corev1.ConditionTrue {
		t.Fatalf("healthy: %+v", c)
	}
	if c := Desired(ct, &targets.Health{State: targets.StateInitial, Reason: "Elb.InitialHealthChecking"}); c.Status != corev1.ConditionFalse || c.Reason != "Elb.InitialHealthChecking" {
		t.Fatalf("initial: %+v", c)
	}
}

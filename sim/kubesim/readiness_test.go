package kubesim_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/sim/kubesim"
)

func TestReadyCondition(t *testing.T) {
	const gate = "target-health.elbv2.k8s.aws/web"
	pod := func(containersReady corev1.ConditionStatus, gateStatus corev1.ConditionStatus, gated bool) *corev1.Pod {
		p := &corev1.Pod{Status: corev1.PodStatus{PodIP: "10.0.4.1", Conditions: []corev1.PodCondition{
			{Type: corev1.ContainersReady, Status: containersReady}}}}
		if gated {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: gate}}
		}
		if gateStatus != "" {
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: gate, Status: gateStatus})
		}
		return p
	}
	cases := []struct {
		name   string
		pod    *corev1.Pod
		status corev1.ConditionStatus
		reason string
	}{
		{"no gate, containers ready", pod(corev1.ConditionTrue, "", false), corev1.ConditionTrue, ""},
		{"no gate, containers not ready", pod(corev1.ConditionFalse, "", false), corev1.ConditionFalse, ""},
		{"gate missing", pod(corev1.ConditionTrue, "", true), corev1.ConditionFalse, kubesim.ReasonReadinessGatesNotReady},
		{"gate false", pod(corev1.ConditionTrue, corev1.ConditionFalse, true), corev1.ConditionFalse, kubesim.ReasonReadinessGatesNotReady},
		{"gate true", pod(corev1.ConditionTrue, corev1.ConditionTrue, true), corev1.ConditionTrue, ""},
		{"gate true, containers not ready", pod(corev1.ConditionFalse, corev1.ConditionTrue, true), corev1.ConditionFalse, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := kubesim.ReadyCondition(tc.pod)
			if c.Status != tc.status || (tc.reason != "" && c.Reason != tc.reason) {
				t.Fatalf("Ready = %s (%s: %s); want %s %s", c.Status, c.Reason, c.Message, tc.status, tc.reason)
			}
			// The endpoint follows Ready; deletion makes it terminating and not ready, still serving.
			tc.pod.Status.Conditions = append(tc.pod.Status.Conditions, c)
			ep := kubesim.Endpoint(tc.pod)
			if *ep.Conditions.Ready != (c.Status == corev1.ConditionTrue) || *ep.Conditions.Terminating {
				t.Fatalf("endpoint conditions %+v for Ready %s", ep.Conditions, c.Status)
			}
			tc.pod.DeletionTimestamp = &metav1.Time{}
			ep = kubesim.Endpoint(tc.pod)
			if *ep.Conditions.Ready || !*ep.Conditions.Terminating || *ep.Conditions.Serving != (c.Status == corev1.ConditionTrue) {
				t.Fatalf("terminating endpoint conditions %+v", ep.Conditions)
			}
		})
	}
}

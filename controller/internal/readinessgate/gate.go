// Package readinessgate reads and writes the pod readiness gate a TargetGroupBinding owns:
// condition type target-health.elbv2.k8s.aws/<tgb-name>, True once the pod's target is healthy.
package readinessgate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/internal/targets"
)

// Prefix starts every condition type the controller owns.
const Prefix = "target-health.elbv2.k8s.aws/"

// Reasons for a False condition that ELB health does not name.
const (
	ReasonRegistrationInProgress = "Elb.RegistrationInProgress"
	ReasonDeregistered           = "Elb.Deregistered"
)

// ConditionType is the readiness gate of the TargetGroupBinding named tgbName.
func ConditionType(tgbName string) corev1.PodConditionType {
	return corev1.PodConditionType(Prefix + tgbName)
}

// TGBNames lists the TargetGroupBindings (in the pod's namespace) that gate the pod.
func TGBNames(pod *corev1.Pod) []string {
	var out []string
	for _, g := range pod.Spec.ReadinessGates {
		if name, ok := cutPrefix(string(g.ConditionType)); ok {
			out = append(out, name)
		}
	}
	return out
}

// HasGate reports whether the pod carries the readiness gate ct.
func HasGate(pod *corev1.Pod, ct corev1.PodConditionType) bool {
	for _, g := range pod.Spec.ReadinessGates {
		if g.ConditionType == ct {
			return true
		}
	}
	return false
}

// Condition returns the pod condition of type ct.
func Condition(pod *corev1.Pod, ct corev1.PodConditionType) (corev1.PodCondition, bool) {
	for _, c := range pod.Status.Conditions {
		if c.Type == ct {
			return c, true
		}
	}
	return corev1.PodCondition{}, false
}

// ContainersReady reports the pod's ContainersReady condition.
func ContainersReady(pod *corev1.Pod) bool {
	c, ok := Condition(pod, corev1.ContainersReady)
	return ok && c.Status == corev1.ConditionTrue
}

// PresentNotTrue reports whether the gate condition exists and is not True — the state in which
// the checkpoint early exit is not allowed.
func PresentNotTrue(pod *corev1.Pod, ct corev1.PodConditionType) bool {
	c, ok := Condition(pod, ct)
	return ok && c.Status != corev1.ConditionTrue
}

// Desired is the condition a target's health calls for; h is nil when AWS does not know the target yet.
func Desired(ct corev1.PodConditionType, h *targets.Health) corev1.PodCondition {
	c := corev1.PodCondition{Type: ct, Status: corev1.ConditionFalse, Reason: ReasonRegistrationInProgress}
	if h == nil {
		return c
	}
	if h.State == targets.StateHealthy {
		return corev1.PodCondition{Type: ct, Status: corev1.ConditionTrue}
	}
	c.Reason = "Target." + h.State
	if h.Reason != "" {
		c.Reason = h.Reason
	}
	c.Message = "target is " + h.State
	return c
}

// Patch sets the condition on the pod (status subresource, strategic merge by type) when its
// status, reason or message differ. It reports whether a patch was sent.
func Patch(ctx context.Context, c client.Client, pod *corev1.Pod, want corev1.PodCondition) (bool, error) {
	if cur, ok := Condition(pod, want.Type); ok && cur.Status == want.Status && cur.Reason == want.Reason && cur.Message == want.Message {
		return false, nil
	}
	orig := pod.DeepCopy()
	now := metav1.Now()
	want.LastProbeTime = now
	want.LastTransitionTime = now
	if cur, ok := Condition(pod, want.Type); ok && cur.Status == want.Status {
		want.LastTransitionTime = cur.LastTransitionTime
	}
	replaced := false
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == want.Type {
			pod.Status.Conditions[i] = want
			replaced = true
		}
	}
	if !replaced {
		pod.Status.Conditions = append(pod.Status.Conditions, want)
	}
	if err := c.Status().Patch(ctx, pod, client.StrategicMergeFrom(orig)); err != nil {
		return false, client.IgnoreNotFound(err)
	}
	return true, nil
}

func cutPrefix(s string) (string, bool) {
	if len(s) > len(Prefix) && s[:len(Prefix)] == Prefix {
		return s[len(Prefix):], true
	}
	return "", false
}

// PodChanged reports whether an update of a gated pod may change its bindings' targets or
// gates: its containers' readiness, deletion, IP or a gate condition's status.
func PodChanged(op, np *corev1.Pod) bool {
	if len(TGBNames(np)) == 0 {
		return false
	}
	if ContainersReady(op) != ContainersReady(np) ||
		(op.DeletionTimestamp == nil) != (np.DeletionTimestamp == nil) || op.Status.PodIP != np.Status.PodIP {
		return true
	}
	for _, name := range TGBNames(np) {
		ct := ConditionType(name)
		oc, _ := Condition(op, ct)
		nc, _ := Condition(np, ct)
		if oc.Status != nc.Status {
			return true
		}
	}
	return false
}

// Bindings are the bindings whose readiness gates the pod carries.
func Bindings(pod *corev1.Pod) []types.NamespacedName {
	var out []types.NamespacedName
	for _, name := range TGBNames(pod) {
		out = append(out, types.NamespacedName{Namespace: pod.Namespace, Name: name})
	}
	return out
}

package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/restartsim/restartsim/controller/internal/readinessgate"
)

// podHandler maps a pod to the bindings whose readiness gates it carries (the gate names the
// binding, so no lookup is needed). Pods without gates are covered by their EndpointSlices.
// Updates count when containers readiness, a gate condition or deletion changes.
func (c *Controller) podHandler() handler.EventHandler {
	return mapHandler{
		c: c,
		mapFn: func(_ context.Context, o client.Object) []types.NamespacedName {
			return gatingBindings(o.(*corev1.Pod))
		},
		relevant: func(o, n client.Object) bool { return gatedPodChanged(o.(*corev1.Pod), n.(*corev1.Pod)) },
	}
}

// gatedPodChanged reports whether an update of a gated pod may change its bindings' targets or
// gates: its containers' readiness, deletion, IP or a gate condition's status.
func gatedPodChanged(op, np *corev1.Pod) bool {
	if len(readinessgate.TGBNames(np)) == 0 {
		return false
	}
	if readinessgate.ContainersReady(op) != readinessgate.ContainersReady(np) ||
		(op.DeletionTimestamp == nil) != (np.DeletionTimestamp == nil) || op.Status.PodIP != np.Status.PodIP {
		return true
	}
	for _, name := range readinessgate.TGBNames(np) {
		ct := readinessgate.ConditionType(name)
		oc, _ := readinessgate.Condition(op, ct)
		nc, _ := readinessgate.Condition(np, ct)
		if oc.Status != nc.Status {
			return true
		}
	}
	return false
}

// gatingBindings are the bindings whose readiness gates the pod carries.
func gatingBindings(pod *corev1.Pod) []types.NamespacedName {
	var out []types.NamespacedName
	for _, name := range readinessgate.TGBNames(pod) {
		out = append(out, types.NamespacedName{Namespace: pod.Namespace, Name: name})
	}
	return out
}

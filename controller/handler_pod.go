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
			return readinessgate.Bindings(o.(*corev1.Pod))
		},
		relevant: func(o, n client.Object) bool { return readinessgate.PodChanged(o.(*corev1.Pod), n.(*corev1.Pod)) },
	}
}

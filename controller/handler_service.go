package controller

import (
	"context"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

// serviceHandler maps a Service to the bindings that reference it; updates count when ports or type change.
func (c *Controller) serviceHandler() handler.EventHandler {
	return mapHandler{
		c: c,
		mapFn: func(ctx context.Context, o client.Object) []types.NamespacedName {
			return c.tgbsForService(ctx, o.GetNamespace(), o.GetName())
		},
		relevant: func(o, n client.Object) bool {
			os, ns := o.(*corev1.Service), n.(*corev1.Service)
			return os.Spec.Type != ns.Spec.Type || !reflect.DeepEqual(os.Spec.Ports, ns.Spec.Ports)
		},
	}
}

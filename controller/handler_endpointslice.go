package controller

import (
	"context"
	"reflect"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
)

// endpointSliceHandler maps an EndpointSlice (through its kubernetes.io/service-name label) to the
// bindings of its Service; updates count when endpoints or ports change.
func (c *Controller) endpointSliceHandler() handler.EventHandler {
	return mapHandler{
		c: c,
		mapFn: func(ctx context.Context, o client.Object) []types.NamespacedName {
			return c.tgbsForService(ctx, o.GetNamespace(), o.GetLabels()[discoveryv1.LabelServiceName])
		},
		relevant: func(o, n client.Object) bool {
			os, ns := o.(*discoveryv1.EndpointSlice), n.(*discoveryv1.EndpointSlice)
			return !reflect.DeepEqual(os.Endpoints, ns.Endpoints) || !reflect.DeepEqual(os.Ports, ns.Ports) ||
				os.Labels[discoveryv1.LabelServiceName] != ns.Labels[discoveryv1.LabelServiceName]
		},
	}
}

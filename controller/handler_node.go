package controller

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/endpoints"
)

// nodeHandler maps a node to the instance-target bindings (through the targetType index; bindings
// without a targetType may resolve to instance). Updates count when readiness, labels or the
// provider ID change.
func (c *Controller) nodeHandler() handler.EventHandler {
	return mapHandler{
		c: c,
		mapFn: func(ctx context.Context, _ client.Object) []types.NamespacedName {
			var out []types.NamespacedName
			for _, tt := range []string{string(v1beta1.TargetTypeInstance), targetTypeUnset} {
				var list v1beta1.TargetGroupBindingList
				if err := c.client.List(ctx, &list, c.readOnly(client.MatchingFields{indexTargetType: tt})...); err != nil {
					c.log.Error(err, "listing instance TargetGroupBindings")
					continue
				}
				for i := range list.Items {
					out = append(out, client.ObjectKeyFromObject(&list.Items[i]))
				}
			}
			return out
		},
		relevant: func(o, n client.Object) bool { return endpoints.NodeChanged(o.(*corev1.Node), n.(*corev1.Node)) },
	}
}

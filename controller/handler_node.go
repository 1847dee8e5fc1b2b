package controller

import (
	"context"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
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
		relevant: func(o, n client.Object) bool { return nodeChanged(o.(*corev1.Node), n.(*corev1.Node)) },
	}
}

// nodeChanged reports whether a node update may change instance targets: not a kubelet's periodic
// status report, only readiness, labels (selectors, exclusion), the provider ID or deletion.
func nodeChanged(o, n *corev1.Node) bool {
	return nodeReadyStatus(o) != nodeReadyStatus(n) || !reflect.DeepEqual(o.Labels, n.Labels) ||
		o.Spec.ProviderID != n.Spec.ProviderID || (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil)
}

func nodeReadyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return corev1.ConditionUnknown
}

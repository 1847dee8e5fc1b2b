package controller

import (
	"context"

	discoveryv1 "k8s.io/api/discovery/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Field indexes on TargetGroupBindings, so event handlers find the bindings an object affects
// without listing all of them.
const (
	// indexServiceName: spec.serviceRef.name (also a selectable field of the CRD).
	indexServiceName = v1beta1.FieldServiceName
	// indexTargetType: spec.targetType, or targetTypeUnset (also a selectable field of the CRD).
	indexTargetType = v1beta1.FieldTargetType
	// indexNetworking: "true" when spec.networking has ingress rules.
	indexNetworking = "spec.networking"
	// indexSliceService: an EndpointSlice's kubernetes.io/service-name label, so resolving a
	// binding reads its Service's slices without scanning every slice of the namespace.
	indexSliceService = "metadata.labels.serviceName"

	targetTypeUnset = "unset"
)

func setupIndexes(ctx context.Context, idx client.FieldIndexer) error {
	tgb := &v1beta1.TargetGroupBinding{}
	if err := idx.IndexField(ctx, tgb, indexServiceName, func(o client.Object) []string {
		return []string{o.(*v1beta1.TargetGroupBinding).Spec.ServiceRef.Name}
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, tgb, indexTargetType, func(o client.Object) []string {
		if t := o.(*v1beta1.TargetGroupBinding).Spec.TargetType; t != nil {
			return []string{string(*t)}
		}
		return []string{targetTypeUnset}
	}); err != nil {
		return err
	}
	if err := idx.IndexField(ctx, tgb, indexNetworking, func(o client.Object) []string {
		if n := o.(*v1beta1.TargetGroupBinding).Spec.Networking; n != nil && len(n.Ingress) > 0 {
			return []string{"true"}
		}
		return nil
	}); err != nil {
		return err
	}
	return idx.IndexField(ctx, &discoveryv1.EndpointSlice{}, indexSliceService, func(o client.Object) []string {
		if name, ok := o.GetLabels()[discoveryv1.LabelServiceName]; ok && name != "" {
			return []string{name}
		}
		return nil
	})
}

// networkingTGBs lists the live TargetGroupBindings with networking rules (for the networking
// manager's "every binding recomputed since start" check). The resume fast path cannot list them
// (the cache has not synced): its requests are add-only (networking.Request.AddOnly).
func (c *Controller) networkingTGBs(ctx context.Context) ([]string, error) {
	var list v1beta1.TargetGroupBindingList
	if err := c.client.List(ctx, &list, c.readOnly(client.MatchingFields{indexNetworking: "true"})...); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(list.Items))
	for i := range list.Items {
		if list.Items[i].DeletionTimestamp.IsZero() {
			out = append(out, client.ObjectKeyFromObject(&list.Items[i]).String())
		}
	}
	return out, nil
}

// tgbPredicate passes TargetGroupBinding events that can change what a reconcile does: spec
// (generation), annotations (the checkpoint reset), deletion and finalizers; not status writes.
func tgbPredicate() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetResourceVersion() == n.GetResourceVersion() || // resync
			o.GetGeneration() != n.GetGeneration() ||
			!equalMaps(o.GetAnnotations(), n.GetAnnotations()) ||
			(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) ||
			len(o.GetFinalizers()) != len(n.GetFinalizers())
	}}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

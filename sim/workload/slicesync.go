package workload

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// syncSlice rewrites the Service's EndpointSlice from its pods as the API server has them now.
func (f *FleetPlan) syncSlice(ctx context.Context, live *liveState, t *TGBPlan) error {
	_, err := syncSlice(ctx, live.opts.Client, t.Key())
	return err
}

// syncSlice brings the EndpointSlice of the Service svc in line with the Service's pods, reading both
// from the API server: first the slice, then the pods, and updating under the slice's
// resourceVersion. The pods are thus never older than the slice, and any concurrent slice writer makes
// the update conflict (and retry) instead of being overwritten with older state. This makes the
// mutations and the Simulator safe as concurrent writers. It reports whether it wrote; a missing slice
// is left alone. A Service's second slice (DuplicateEndpoint), if it has one, follows.
func syncSlice(ctx context.Context, c client.Client, svc types.NamespacedName) (bool, error) {
	wrote := false
	var want []discoveryv1.Endpoint // the main slice's endpoints, as synced
	dup := ""                       // the second slice's name, which the main slice names
	err := retry.OnError(contendedRetry, retriable, func() error {
		slice := &discoveryv1.EndpointSlice{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: svc.Namespace, Name: sliceName(svc.Name)}, slice); err != nil {
			return client.IgnoreNotFound(err)
		}
		var pods corev1.PodList
		if err := c.List(ctx, &pods, client.InNamespace(svc.Namespace), client.MatchingLabels{ServiceLabel: svc.Name}); err != nil {
			return err
		}
		ptrs := make([]*corev1.Pod, len(pods.Items))
		for i := range pods.Items {
			ptrs[i] = &pods.Items[i]
		}
		want, dup = Endpoints(ptrs), slice.Annotations[DuplicateSliceAnnotation]
		if endpointsEqual(slice.Endpoints, want) {
			return nil
		}
		slice.Endpoints = want
		if err := c.Update(ctx, slice); err != nil {
			return client.IgnoreNotFound(err)
		}
		wrote = true
		return nil
	})
	if err != nil || dup == "" {
		return wrote, err
	}
	dupWrote, err := syncDuplicateSlice(ctx, c, types.NamespacedName{Namespace: svc.Namespace, Name: dup}, duplicateEndpoints(want))
	return wrote || dupWrote, err
}

// syncDuplicateSlice makes a Service's second slice (DuplicateEndpoint) list eps, the first of the main
// slice's endpoints as read from the API server just now; a pod that changes meanwhile syncs both
// slices again.
func syncDuplicateSlice(ctx context.Context, c client.Client, key types.NamespacedName, eps []discoveryv1.Endpoint) (bool, error) {
	wrote := false
	err := retry.OnError(contendedRetry, retriable, func() error {
		dup := &discoveryv1.EndpointSlice{}
		if err := c.Get(ctx, key, dup); err != nil {
			return client.IgnoreNotFound(err)
		}
		if endpointsEqual(dup.Endpoints, eps) {
			return nil
		}
		dup.Endpoints = eps
		if err := c.Update(ctx, dup); err != nil {
			return client.IgnoreNotFound(err)
		}
		wrote = true
		return nil
	})
	return wrote, err
}

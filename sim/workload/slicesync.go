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
func (f *Fleet) syncSlice(ctx context.Context, live *liveState, t *TGBPlan) error {
	_, err := syncSlice(ctx, live.opts.Client, t.Key())
	return err
}

// syncSlice brings the EndpointSlice of the Service svc in line with the Service's pods, reading both
// from the API server: first the slice, then the pods, and updating under the slice's
// resourceVersion. The pods are thus never older than the slice, and any concurrent slice writer makes
// the update conflict (and retry) instead of being overwritten with older state. This makes the
// mutations and the Simulator safe as concurrent writers. It reports whether it wrote; a missing slice
// is left alone.
func syncSlice(ctx context.Context, c client.Client, svc types.NamespacedName) (bool, error) {
	wrote := false
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
		want := Endpoints(ptrs)
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
	return wrote, err
}

package workload

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/apiretry"
)

// WarmUp lists each kind the fleet writes once (at most one item), so that the client's REST mapping
// and the API server's serving state for the TargetGroupBinding resource (schema, CEL validators) are
// built before a timed phase, and waits out the API server's create delay for a just-established
// TargetGroupBinding CRD (see waitCRDSettled). Create calls it first.
func WarmUp(ctx context.Context, c client.Client) error {
	lists := []client.ObjectList{&v1beta1.TargetGroupBindingList{}, &corev1.PodList{}, &corev1.ServiceList{},
		&discoveryv1.EndpointSliceList{}, &corev1.NodeList{}, &corev1.NamespaceList{}, &corev1.ConfigMapList{}}
	errs := make([]error, len(lists))
	runPool(ctx, len(lists), len(lists), func(i int) {
		errs[i] = apiretry.OnTransient(ctx, func() error { return c.List(ctx, lists[i], client.Limit(1)) })
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return waitCRDSettled(ctx, c)
}

// crdSettle is how long after a CRD becomes Established kube-apiserver makes every create of its
// resource sleep 2 s (apiextensions' customresource_handler, so that HA peers see the CRD first). Right
// after envtest starts, every fleet worker would stall 2 s on its first TargetGroupBinding.
const crdSettle = 2 * time.Second

// waitCRDSettled waits until the TargetGroupBinding CRD has been Established for crdSettle, for at most
// crdSettle (the two clocks may differ). It is best effort: without read access to CRDs, or without the
// condition, it returns at once and the creates pay the delay instead.
func waitCRDSettled(ctx context.Context, c client.Client) error {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	if err := c.Get(ctx, client.ObjectKey{Name: "targetgroupbindings." + v1beta1.GroupVersion.Group}, crd); err != nil {
		return ctx.Err()
	}
	since, ok := establishedAt(crd)
	if !ok {
		return ctx.Err()
	}
	// The API server compares against the same second-precision timestamp; the margin covers rounding.
	wait := min(time.Until(since.Add(crdSettle+50*time.Millisecond)), crdSettle+50*time.Millisecond)
	if wait <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// establishedAt is the last transition time of a CRD's Established=True condition.
func establishedAt(crd *unstructured.Unstructured) (time.Time, bool) {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Established" || m["status"] != "True" {
			continue
		}
		s, _ := m["lastTransitionTime"].(string)
		t, err := time.Parse(time.RFC3339, s)
		return t, err == nil
	}
	return time.Time{}, false
}

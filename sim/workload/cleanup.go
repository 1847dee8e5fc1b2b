package workload

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Cleanup stops pending container recoveries and deletes what the run created in the cluster: its
// labelled namespaces (with everything in them, on a cluster that runs the namespace controller) and
// its labelled Nodes. It refuses to run without Options.Labels, which would select everything. AWS
// resources are left alone (fakeaws is discarded with the run).
func (f *Fleet) Cleanup(ctx context.Context) error {
	f.Close()
	f.mu.Lock()
	live := f.live
	f.mu.Unlock()
	if live == nil {
		return ErrNotCreated
	}
	if len(live.opts.Labels) == 0 {
		return errors.New("workload cleanup: refusing to delete without run labels (Options.Labels is empty)")
	}
	return DeleteLabelled(ctx, live.opts.Client, live.opts.Labels)
}

// DeleteLabelled deletes the namespaces and Nodes carrying all of the labels. The run's TGBs are
// deleted first with their finalizers dropped: the controller under test is stopped by then (and
// its AWS is discarded), so nothing else would ever release them and their namespaces would stay
// Terminating.
func DeleteLabelled(ctx context.Context, c client.Client, labels map[string]string) error {
	if len(labels) == 0 {
		return errors.New("workload: refusing to delete with an empty label selector")
	}
	var errs []error
	var tgbs v1beta1.TargetGroupBindingList
	if err := c.List(ctx, &tgbs, client.MatchingLabels(labels)); err != nil && !meta.IsNoMatchError(err) {
		errs = append(errs, fmt.Errorf("listing run TGBs: %w", err))
	}
	for i := range tgbs.Items {
		t := &tgbs.Items[i]
		if len(t.Finalizers) > 0 {
			patch := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))
			if err := c.Patch(ctx, t, patch); err != nil && !apierrors.IsNotFound(err) {
				errs = append(errs, fmt.Errorf("dropping the finalizers of TGB %s/%s: %w", t.Namespace, t.Name, err))
				continue
			}
		}
		if err := c.Delete(ctx, t); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting TGB %s/%s: %w", t.Namespace, t.Name, err))
		}
	}
	var nss corev1.NamespaceList
	if err := c.List(ctx, &nss, client.MatchingLabels(labels)); err != nil {
		return errors.Join(append(errs, fmt.Errorf("listing run namespaces: %w", err))...)
	}
	for i := range nss.Items {
		if err := c.Delete(ctx, &nss.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", nss.Items[i].Name, err))
		}
	}
	if err := c.DeleteAllOf(ctx, &corev1.Node{}, client.MatchingLabels(labels)); err != nil {
		errs = append(errs, fmt.Errorf("deleting run nodes: %w", err))
	}
	return errors.Join(errs...)
}

package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/kubesim"
)

// Cleanup stops pending container recoveries and deletes what the run created in the cluster: its
// labelled namespaces (with everything in them, on a cluster that runs the namespace controller) and
// its labelled Nodes. It refuses to run without Options.Labels, which would select everything. AWS
// resources are left alone (fakeaws is discarded with the run).
func (f *FleetPlan) Cleanup(ctx context.Context) error {
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
		// No kubelet confirms the pods' termination: deleting them at once is what it would do, and
		// spares the namespace controller the wait for the pod garbage collector.
		if err := c.DeleteAllOf(ctx, &corev1.Pod{}, client.InNamespace(nss.Items[i].Name), client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting the pods of namespace %s: %w", nss.Items[i].Name, err))
		}
		if err := c.Delete(ctx, &nss.Items[i]); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("deleting namespace %s: %w", nss.Items[i].Name, err))
		}
	}
	// A labelled IngressClass is the run's own (an existing one is left unlabelled).
	if err := c.DeleteAllOf(ctx, &networkingv1.IngressClass{}, client.MatchingLabels(labels)); err != nil {
		errs = append(errs, fmt.Errorf("deleting run ingress classes: %w", err))
	}
	if err := c.DeleteAllOf(ctx, &corev1.Node{}, client.MatchingLabels(labels)); err != nil {
		errs = append(errs, fmt.Errorf("deleting run nodes: %w", err))
	}
	// The heartbeat Leases are owned by their Nodes, but a cluster without a garbage collector
	// (envtest) would keep them.
	if err := c.DeleteAllOf(ctx, &coordinationv1.Lease{}, client.InNamespace(kubesim.NodeLeaseNamespace), client.MatchingLabels(labels)); err != nil {
		errs = append(errs, fmt.Errorf("deleting run node leases: %w", err))
	}
	return errors.Join(errs...)
}

// WaitDeleted waits until no namespace, Node or node Lease carries the labels any more: on a
// cluster whose namespace controller finalizes namespaces, that is when their contents are gone.
// It returns the names still there when ctx ends.
func WaitDeleted(ctx context.Context, c client.Client, labels map[string]string) error {
	if len(labels) == 0 {
		return errors.New("workload: refusing to wait with an empty label selector")
	}
	for {
		left, err := labelled(ctx, c, labels)
		if err == nil && len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			if err != nil {
				return err
			}
			return fmt.Errorf("still there: %s", strings.Join(left, ", "))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func labelled(ctx context.Context, c client.Client, labels map[string]string) ([]string, error) {
	var left []string
	var nss corev1.NamespaceList
	if err := c.List(ctx, &nss, client.MatchingLabels(labels)); err != nil {
		return nil, err
	}
	for _, ns := range nss.Items {
		left = append(left, "namespace "+ns.Name)
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes, client.MatchingLabels(labels)); err != nil {
		return nil, err
	}
	for _, n := range nodes.Items {
		left = append(left, "node "+n.Name)
	}
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases, client.InNamespace(kubesim.NodeLeaseNamespace), client.MatchingLabels(labels)); err != nil {
		return nil, err
	}
	for _, l := range leases.Items {
		left = append(left, "lease "+l.Namespace+"/"+l.Name)
	}
	return left, nil
}

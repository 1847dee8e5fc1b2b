package lb

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lbmodel"
)

// stackLabels label the TargetGroupBindings of a stack, LBC's way: <prefix>/stack-namespace and
// <prefix>/stack-name for a stack named namespace/name (an Ingress without a group, a Service),
// <prefix>/stack for an explicit group; label values cannot hold a slash.
func stackLabels(id lbmodel.StackID) map[string]string {
	prefix := id.TagPrefix()
	if ns, name, ok := strings.Cut(id.Name, "/"); ok {
		return map[string]string{prefix + "/stack-namespace": ns, prefix + "/stack-name": name}
	}
	return map[string]string{prefix + "/stack": id.Name}
}

// stackBindings lists the TargetGroupBindings labelled for the stack, in every cached namespace (an
// explicit Ingress group spans namespaces).
func (r *reconciler) stackBindings(ctx context.Context, id lbmodel.StackID) ([]v1beta1.TargetGroupBinding, error) {
	var list v1beta1.TargetGroupBindingList
	if err := r.client.List(ctx, &list, client.MatchingLabels(stackLabels(id))); err != nil {
		return nil, fmt.Errorf("listing the bindings of stack %s: %w", id.Name, err)
	}
	out := list.Items[:0]
	for _, tgb := range list.Items {
		// A group named like an implicit one's namespace/name carries the other labels too.
		if len(tgb.Labels) > 0 && labelsMatchExactly(tgb.Labels, id) {
			out = append(out, tgb)
		}
	}
	return out, nil
}

// labelsMatchExactly reports whether the labels carry the stack's labels and no other stack label
// of the same prefix (so "ns/name" and an explicit group "ns" never share bindings).
func labelsMatchExactly(labels map[string]string, id lbmodel.StackID) bool {
	want := stackLabels(id)
	for _, k := range []string{"/stack", "/stack-namespace", "/stack-name"} {
		key := id.TagPrefix() + k
		if _, have := labels[key]; have != (want[key] != "") {
			return false
		}
	}
	return true
}

// deleteUnwantedBindings deletes the stack's TargetGroupBindings that wanted does not name, and
// returns how many of them still exist (their finalizer deregisters the targets first).
func (r *reconciler) deleteUnwantedBindings(ctx context.Context, id lbmodel.StackID, wanted []lbmodel.Binding) (int, error) {
	have, err := r.stackBindings(ctx, id)
	if err != nil {
		return 0, err
	}
	keep := map[client.ObjectKey]bool{}
	for _, b := range wanted {
		keep[client.ObjectKey{Namespace: b.Namespace, Name: b.Name}] = true
	}
	pending := 0
	for i := range have {
		tgb := &have[i]
		if keep[client.ObjectKeyFromObject(tgb)] {
			continue
		}
		pending++
		if !tgb.DeletionTimestamp.IsZero() {
			continue
		}
		if err := r.client.Delete(ctx, tgb); client.IgnoreNotFound(err) != nil {
			return 0, fmt.Errorf("deleting binding %s: %w", client.ObjectKeyFromObject(tgb), err)
		}
		r.log.Info("deleted binding no longer in the stack", "stack", id.Name, "binding", client.ObjectKeyFromObject(tgb))
	}
	return pending, nil
}

// applyBindings creates or updates one TargetGroupBinding per stack binding, owned by its member and
// pointing at the deployed target group, so the TargetGroupBinding controller registers the targets.
func (r *reconciler) applyBindings(ctx context.Context, s stackSource, bindings []lbmodel.Binding, arns map[string]string) error {
	for _, b := range bindings {
		arn, ok := arns[b.TargetGroupID]
		if !ok {
			return fmt.Errorf("binding %s/%s: target group %s was not deployed", b.Namespace, b.Name, b.TargetGroupID)
		}
		owner := s.owner(b)
		if owner == nil {
			return fmt.Errorf("binding %s/%s: no member in its namespace names service %s", b.Namespace, b.Name, b.ServiceName)
		}
		if err := r.applyBinding(ctx, s.id, b, arn, owner); err != nil {
			return err
		}
	}
	return nil
}

func (r *reconciler) applyBinding(ctx context.Context, id lbmodel.StackID, b lbmodel.Binding, arn string, owner client.Object) error {
	tgb := &v1beta1.TargetGroupBinding{}
	key := client.ObjectKey{Namespace: b.Namespace, Name: b.Name}
	err := r.client.Get(ctx, key, tgb)
	if err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	exists := err == nil
	orig := tgb.DeepCopy()
	tgb.Namespace, tgb.Name = b.Namespace, b.Name
	if tgb.Labels == nil {
		tgb.Labels = map[string]string{}
	}
	for k, v := range stackLabels(id) {
		tgb.Labels[k] = v
	}
	tt := v1beta1.TargetType(b.TargetType)
	tgb.Spec.TargetGroupARN = arn
	tgb.Spec.TargetType = &tt
	tgb.Spec.ServiceRef = v1beta1.ServiceReference{Name: b.ServiceName, Port: b.ServicePort}
	// One owner, the member naming the Service now: when it goes, so does the binding.
	tgb.OwnerReferences = []metav1.OwnerReference{}
	if err := controllerutil.SetControllerReference(owner, tgb, r.scheme); err != nil {
		return err
	}
	if !exists {
		if err := r.client.Create(ctx, tgb); err != nil {
			return fmt.Errorf("creating binding %s: %w", key, err)
		}
		r.log.Info("created binding", "stack", id.Name, "binding", key, "targetGroupARN", arn)
		return nil
	}
	if equality.Semantic.DeepEqual(orig, tgb) {
		return nil
	}
	if err := r.client.Patch(ctx, tgb, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{})); err != nil {
		return fmt.Errorf("updating binding %s: %w", key, err)
	}
	return nil
}

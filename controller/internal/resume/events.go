package resume

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/endpoints"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
)

// bindingsOf maps an event to the bindings whose reconcile it may change.
func (f *FastPath) bindingsOf(ctx context.Context, typ watch.EventType, obj client.Object) []types.NamespacedName {
	switch o := obj.(type) {
	case *v1beta1.TargetGroupBinding:
		f.mu.Lock()
		delete(f.listed, client.ObjectKeyFromObject(o))
		f.mu.Unlock()
		switch {
		case typ == watch.Deleted:
			return nil
		case !o.DeletionTimestamp.IsZero():
			// Being deleted: its targets are deregistered while the finalizer holds it.
			if !controllerutil.ContainsFinalizer(o, f.cfg.Finalizer) {
				return nil
			}
		case o.Generation == ptr.Deref(o.Status.ObservedGeneration, 0):
			// Only a new or changed spec: the controller's own writes (checkpoints, status)
			// change neither generation nor observedGeneration's lag.
			return nil
		}
		return []types.NamespacedName{client.ObjectKeyFromObject(o)}
	case *corev1.Service:
		return f.bindingsOfService(ctx, o.Namespace, o.Name)
	case *discoveryv1.EndpointSlice:
		if name := o.Labels[discoveryv1.LabelServiceName]; name != "" {
			svc := types.NamespacedName{Namespace: o.Namespace, Name: name}
			f.mu.Lock()
			f.sliceRV[svc] = newerRV(o.ResourceVersion, f.sliceRV[svc])
			f.mu.Unlock()
			return f.bindingsOfService(ctx, o.Namespace, name)
		}
	case *corev1.Pod:
		return f.bindingsOfPod(typ, o)
	case *corev1.Node:
		return f.bindingsOfNode(ctx, typ, o)
	}
	return nil
}

// bindingsOfPod maps a pod event to the bindings the pod's gates name (pods without gates are
// covered by their slices), unless it is the fast path's own gate patch or, after an earlier
// event of the pod, changed nothing the bindings depend on.
func (f *FastPath) bindingsOfPod(typ watch.EventType, pod *corev1.Pod) []types.NamespacedName {
	bindings := readinessgate.Bindings(pod)
	if len(bindings) == 0 {
		return nil
	}
	key := client.ObjectKeyFromObject(pod)
	f.mu.Lock()
	prev := f.pods[key]
	if typ == watch.Deleted {
		delete(f.pods, key)
	} else {
		f.pods[key] = pod
	}
	f.mu.Unlock()
	if rv, ok := f.gateWrites.Load(key); ok && rv == pod.ResourceVersion {
		return nil
	}
	if typ == watch.Modified && prev != nil && !readinessgate.PodChanged(prev, pod) {
		return nil
	}
	return bindings
}

// bindingsOfNode maps a node event to the instance bindings, unless it changed nothing they
// depend on since the node's previous event or, for its first, since the watermark. When the
// node's state at the watermark cannot be read (typically compacted), the event is left to the
// normal path rather than reconciling every instance binding on a guess.
func (f *FastPath) bindingsOfNode(ctx context.Context, typ watch.EventType, node *corev1.Node) []types.NamespacedName {
	f.mu.Lock()
	prev, seen := f.nodes[node.Name]
	f.mu.Unlock()
	if !seen {
		var err error
		if prev, err = f.nodeAtWatermark(ctx, node.Name); err != nil {
			if ctx.Err() == nil {
				f.cfg.Log.WithName("resume").Info("reading a node at the watermark; its change waits for the caches",
					"node", node.Name, "error", err.Error())
			}
			return nil
		}
	}
	f.mu.Lock()
	f.nodes[node.Name] = node
	if typ == watch.Deleted {
		f.nodes[node.Name] = nil
	}
	f.nodeRV = newerRV(node.ResourceVersion, f.nodeRV)
	f.mu.Unlock()
	if typ == watch.Modified && prev != nil && !endpoints.NodeChanged(prev, node) {
		return nil
	}
	return f.instanceBindings(ctx)
}

// nodeAtWatermark reads a node as it was at the watermark; nil if it did not exist. The list is
// exact at that resource version: the API server serves it from its watch cache's snapshots
// while the watermark is within their history (a restart's downtime plus at most one
// ResumeInterval), else from etcd until the revision is compacted. It runs once per node with an
// event, so a cluster whose kubelets report status during the downtime pays one read per node.
func (f *FastPath) nodeAtWatermark(ctx context.Context, name string) (*corev1.Node, error) {
	var list corev1.NodeList
	if err := f.cfg.Reader.List(ctx, &list, client.MatchingFields{"metadata.name": name}, &client.ListOptions{
		Raw: &metav1.ListOptions{ResourceVersion: f.watermark, ResourceVersionMatch: metav1.ResourceVersionMatchExact}}); err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, nil
	}
	return &list.Items[0], nil
}

// instanceBindings lists, once, the bindings whose targets may be instances (targetType instance
// or unset) by the CRD's selectable field spec.targetType, in each watched namespace (or all);
// like bindingsOfService, consistently, and keeping the bindings for their first reconcile.
func (f *FastPath) instanceBindings(ctx context.Context) []types.NamespacedName {
	f.mu.Lock()
	keys := f.instance
	f.mu.Unlock()
	if keys != nil {
		return keys
	}
	namespaces := f.cfg.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{metav1.NamespaceAll}
	}
	keys = []types.NamespacedName{}
	for _, ns := range namespaces {
		nsKeys, err := f.listBindings(ctx, client.InNamespace(ns), client.MatchingFieldsSelector{
			Selector: fields.OneTermNotEqualSelector(v1beta1.FieldTargetType, string(v1beta1.TargetTypeIP))})
		if err != nil {
			if ctx.Err() == nil {
				f.cfg.Log.Error(err, "resume: listing the instance bindings", "namespace", ns)
			}
			return nil
		}
		keys = append(keys, nsKeys...)
	}
	f.mu.Lock()
	f.instance = keys
	f.mu.Unlock()
	return keys
}

// bindingsOfService lists a Service's bindings from the API server by the CRD's selectable field
// spec.serviceRef.name, once per Service. The list is consistent: its bindings are reconciled
// without a second read (listed), so they must show, say, a checkpoint the crashed instance reset.
func (f *FastPath) bindingsOfService(ctx context.Context, namespace, name string) []types.NamespacedName {
	svc := types.NamespacedName{Namespace: namespace, Name: name}
	f.mu.Lock()
	keys, ok := f.bindings[svc]
	f.mu.Unlock()
	if ok {
		return keys
	}
	keys, err := f.listBindings(ctx, client.InNamespace(namespace), client.MatchingFields{v1beta1.FieldServiceName: name})
	if err != nil {
		if ctx.Err() == nil {
			f.cfg.Log.Error(err, "resume: listing the bindings of a Service", "service", svc)
		}
		return nil
	}
	f.mu.Lock()
	f.bindings[svc] = keys
	f.mu.Unlock()
	return keys
}

// listBindings lists bindings from the API server and keeps them for their next reconcile
// (listed); it returns their keys.
func (f *FastPath) listBindings(ctx context.Context, opts ...client.ListOption) ([]types.NamespacedName, error) {
	var list v1beta1.TargetGroupBindingList
	if err := f.cfg.Reader.List(ctx, &list, opts...); err != nil {
		return nil, err
	}
	var keys []types.NamespacedName
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range list.Items {
		key := client.ObjectKeyFromObject(&list.Items[i])
		keys = append(keys, key)
		f.listed[key] = &list.Items[i]
	}
	return keys, nil
}

package controller

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
)

// cacheTransform trims every object before the informer stores it, so the cache holds less and
// each cached Get or List deep-copies less: managedFields go everywhere (the controller never reads
// them, and on a small object they are often the largest part), and Pods and Nodes keep only the
// fields the controller reads (see trimPod, trimNode). Metadata other than managedFields is kept
// whole: names, labels, annotations, owner references and timestamps. It is idempotent, as
// client-go requires, and leaves anything that is not an object (tombstones) alone.
func cacheTransform(obj any) (any, error) {
	if a, err := meta.Accessor(obj); err == nil && a.GetManagedFields() != nil {
		a.SetManagedFields(nil)
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		trimPod(o)
	case *corev1.Node:
		trimNode(o)
	}
	return obj, nil
}

// trimPod keeps what endpoint resolution, the readiness gates and the pod handler read: the
// readiness gates, the conditions, the IPs and the phase; containers, volumes and container
// statuses (the bulk of a real pod) go. The controller only ever patches pods with a strategic
// merge patch computed between two trimmed copies, so the trimmed fields are never written back.
func trimPod(p *corev1.Pod) {
	p.Spec = corev1.PodSpec{ReadinessGates: p.Spec.ReadinessGates, NodeName: p.Spec.NodeName}
	p.Status = corev1.PodStatus{Phase: p.Status.Phase, Conditions: p.Status.Conditions,
		PodIP: p.Status.PodIP, PodIPs: p.Status.PodIPs, HostIP: p.Status.HostIP, HostIPs: p.Status.HostIPs}
}

// trimNode drops the node's image list and attached volumes (large on real nodes, never read);
// labels, provider ID and conditions stay.
func trimNode(n *corev1.Node) {
	n.Status.Images = nil
	n.Status.VolumesInUse = nil
	n.Status.VolumesAttached = nil
}

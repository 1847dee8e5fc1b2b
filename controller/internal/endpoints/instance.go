package endpoints

import (
	"fmt"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/targets"
	"github.com/restartsim/restartsim/internal/providerid"
)

// LabelExcludeFromLB excludes a node from load balancers.
const LabelExcludeFromLB = "node.kubernetes.io/exclude-from-external-load-balancers"

// InstanceInput is what instance resolution reads.
type InstanceInput struct {
	ServicePort corev1.ServicePort
	Nodes       []corev1.Node
	// Selector is the TargetGroupBinding's nodeSelector (nil: every node).
	Selector labels.Selector
}

// ResolveInstance returns instance targets on the Service port's NodePort: every ready node that
// matches the selector, is not excluded from load balancers and has an EC2 provider ID.
func ResolveInstance(in InstanceInput) (Result, error) {
	if in.ServicePort.NodePort == 0 {
		return Result{}, fmt.Errorf("service port %d has no NodePort; instance targets need a NodePort or LoadBalancer Service", in.ServicePort.Port)
	}
	var res Result
	for i := range in.Nodes {
		n := &in.Nodes[i]
		if n.DeletionTimestamp != nil || !nodeReady(n) {
			continue
		}
		if _, excluded := n.Labels[LabelExcludeFromLB]; excluded {
			continue
		}
		if in.Selector != nil && !in.Selector.Matches(labels.Set(n.Labels)) {
			continue
		}
		id := providerid.InstanceID(n.Spec.ProviderID)
		if id == "" {
			continue
		}
		t := targets.Target{ID: id, Port: in.ServicePort.NodePort}
		res.Endpoints = append(res.Endpoints, Endpoint{
			Target: t, Ready: true,
			HashID: checkpoint.InstanceEndpointID(id, t.Port, n.CreationTimestamp.Time),
		})
	}
	sortEndpoints(res.Endpoints)
	return res, nil
}

func nodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// NodeChanged reports whether a node update may change instance targets: not a kubelet's periodic
// status report, only readiness, labels (selectors, exclusion), the provider ID or deletion.
func NodeChanged(o, n *corev1.Node) bool {
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

package kubesim

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/internal/providerid"
)

// NodeLeaseNamespace holds the kubelets' heartbeat Leases.
const NodeLeaseNamespace = corev1.NamespaceNodeLease

// renewLeases keeps a heartbeat Lease per fleet node, as the kubelet does, so that on a real cluster the
// node lifecycle controller does not mark the simulated nodes NotReady and evict their pods. Nodes are
// listed afresh each round, so nodes that joined during the run (workload.FleetPlan.JoinNode) get theirs; a
// node that is not Ready (workload.FleetPlan.NodeNotReady) gets no renewals: its kubelet is gone, and a
// heartbeat would tell a real cluster's lifecycle controller otherwise. Leases write only Leases, never a
// Node's status.
func (s *Simulator) renewLeases(ctx context.Context) {
	t := time.NewTicker(s.opts.NodeLeaseInterval)
	defer t.Stop()
	for {
		s.renewLeasesOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func (s *Simulator) renewLeasesOnce(ctx context.Context) {
	var nodes corev1.NodeList
	if err := s.c.List(ctx, &nodes, client.MatchingLabels(s.opts.Labels)); err != nil {
		s.opts.Logger.V(1).Info("listing nodes for leases", "error", err.Error())
		return
	}
	now := metav1.NewMicroTime(time.Now())
	duration := int32(max(40, 4*s.opts.NodeLeaseInterval/time.Second))
	for i := range nodes.Items {
		n := &nodes.Items[i]
		if !NodeReady(n) || providerid.InstanceID(n.Spec.ProviderID) == "" {
			continue
		}
		err := RenewLease(ctx, s.c, n, duration, now, s.opts.Labels)
		if err != nil && ctx.Err() == nil {
			s.opts.Logger.V(1).Info("renewing node lease", "node", n.Name, "error", err.Error())
		}
	}
}

// RenewLease creates or renews node n's heartbeat Lease in kube-node-lease, as its kubelet does,
// owned by the node so it goes with it.
func RenewLease(ctx context.Context, c client.Client, n *corev1.Node, duration int32, now metav1.MicroTime, labels map[string]string) error {
	lease := &coordinationv1.Lease{}
	err := c.Get(ctx, client.ObjectKey{Namespace: NodeLeaseNamespace, Name: n.Name}, lease)
	switch {
	case apierrors.IsNotFound(err):
		lease = &coordinationv1.Lease{
			ObjectMeta: metav1.ObjectMeta{Namespace: NodeLeaseNamespace, Name: n.Name, Labels: labels,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: n.Name, UID: n.UID}}},
			Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(n.Name), LeaseDurationSeconds: &duration, RenewTime: &now},
		}
		return c.Create(ctx, lease)
	case err == nil:
		lease.Spec.RenewTime, lease.Spec.LeaseDurationSeconds = &now, &duration
		return c.Update(ctx, lease)
	}
	return err
}

// NodeReady tells whether the node's Ready condition is True.
func NodeReady(n *corev1.Node) bool {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

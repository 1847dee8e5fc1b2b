package actions

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/nodesim"
	"github.com/restartsim/restartsim/sim/scenario"
)

// deleteNodes deletes Count Nodes of EC2 instances (the simulated kubelets' Nodes), drawn with the
// seed, as `kubectl delete node` does: a disruption the controller must handle (Karpenter's
// termination finalizer holds the Node until it has drained it and terminated its instance), not a
// change whose application is timed.
func (e *Executor) deleteNodes(ctx context.Context, st scenario.Step) error {
	var nodes corev1.NodeList
	if err := e.client.List(ctx, &nodes, client.HasLabels{nodesim.ManagedLabel}); err != nil {
		return fmt.Errorf("churn %s: listing nodes: %w", st.Kind, err)
	}
	var names []string
	for _, n := range nodes.Items {
		if n.DeletionTimestamp == nil {
			names = append(names, n.Name)
		}
	}
	if len(names) < st.Count {
		return fmt.Errorf("churn %s: %d nodes of EC2 instances are not being deleted, the step deletes %d", st.Kind, len(names), st.Count)
	}
	slices.Sort(names)
	e.rng.Shuffle(len(names), func(i, j int) { names[i], names[j] = names[j], names[i] })
	e.event("churn", fmt.Sprintf("%s × %d", st.Kind, st.Count), e.clock.Now(), nil)
	for _, name := range names[:st.Count] {
		err := e.client.Delete(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}})
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("churn %s: deleting node %s: %w", st.Kind, name, err)
		}
		e.log.V(1).Info("node deleted", "node", name)
	}
	return nil
}

package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/apiretry"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// Kinds of the node mutations' changes.
const (
	ChangeNodeJoin     = "node-join"
	ChangeNodeNotReady = "node-not-ready"
)

// ErrUnknownNode is returned for a node the fleet does not hold.
var ErrUnknownNode = errors.New("workload: unknown node")

// NodeChange is what one node mutation did: the node, and one Change per instance TGB whose
// targets it changes.
type NodeChange struct {
	Node    NodePlan
	Changes []FleetChange
}

// Replacement is what ReplaceNode did: the node that joined and the node that turned NotReady.
type Replacement struct {
	Joined, Replaced NodeChange
}

// Changes are the joined node's changes followed by the replaced node's.
func (r Replacement) Changes() []FleetChange {
	return append(slices.Clone(r.Joined.Changes), r.Replaced.Changes...)
}

// node returns f.Nodes[i] for readers that do not hold f.mu.
func (f *FleetPlan) node(i int) NodePlan {
	f.nodesMu.RLock()
	defer f.nodesMu.RUnlock()
	return f.Nodes[i]
}

// beginNodes locks the fleet's nodes against other node mutations and returns the live state.
func (f *FleetPlan) beginNodes() (*liveState, error) {
	f.mu.Lock()
	live := f.live
	f.mu.Unlock()
	if live == nil {
		return nil, ErrNotCreated
	}
	f.nodeLock.Lock()
	return live, nil
}

// JoinNode adds a node, as a node group scaling out does: the next addresses of the node range, a new
// EC2 instance with its trunk ENI (seeded through Options.AWS) in the zone and one of the security groups planned nodes
// get, and a Ready Node. New pods may be placed on it. Each Change registers the instance on the
// NodePort of an instance TGB whose spec.nodeSelector matches the node.
func (f *FleetPlan) JoinNode(ctx context.Context) (NodeChange, error) {
	live, err := f.beginNodes()
	if err != nil {
		return NodeChange{}, err
	}
	defer f.nodeLock.Unlock()
	return f.joinNode(ctx, live)
}

func (f *FleetPlan) joinNode(ctx context.Context, live *liveState) (NodeChange, error) {
	f.mu.Lock()
	n, err := f.planNode(f.rng)
	f.mu.Unlock()
	if err != nil {
		return NodeChange{}, err
	}
	sg := live.sgIDs[n.SecurityGroup]
	if err := f.seedNode(ctx, live, n); err != nil {
		return NodeChange{Node: n}, fmt.Errorf("node join: %w", err)
	}
	now := metav1.NewTime(live.opts.Clock.Now())
	if err := f.createNode(ctx, live, n, now, live.uncounted()); err != nil {
		return NodeChange{Node: n}, fmt.Errorf("node join: %w", err)
	}
	f.mu.Lock()
	f.nodesMu.Lock()
	f.Nodes = append(f.Nodes, n)
	f.nodesMu.Unlock()
	f.mu.Unlock()
	live.opts.Logger.Info("node joined", "node", n.Name, "instance", n.InstanceID)
	chs, err := f.nodeChanges(ctx, live, ChangeNodeJoin, n, f.nodeObject(n, sg, live.opts.Labels, now).Labels)
	return NodeChange{Node: n, Changes: chs}, err
}

// NodeNotReady turns the named node's Ready condition False, as the kubelet of a node being drained
// and terminated stops reporting. New pods are no longer placed on it; its pods are left as they are
// (envtest runs no node lifecycle controller to evict them, and their ip targets do not depend on
// the node's readiness). The Simulator stops renewing its heartbeat Lease. It refuses the fleet's
// last Ready node. Each Change deregisters the instance from the NodePort of an instance TGB whose
// spec.nodeSelector matches the node.
func (f *FleetPlan) NodeNotReady(ctx context.Context, name string) (NodeChange, error) {
	live, err := f.beginNodes()
	if err != nil {
		return NodeChange{}, err
	}
	defer f.nodeLock.Unlock()
	return f.nodeNotReady(ctx, live, name)
}

func (f *FleetPlan) nodeNotReady(ctx context.Context, live *liveState, name string) (NodeChange, error) {
	f.mu.Lock()
	i := slices.IndexFunc(f.Nodes, func(n NodePlan) bool { return n.Name == name })
	ready := len(f.Nodes) - f.notReady
	var n NodePlan
	if i >= 0 {
		n = f.Nodes[i]
	}
	f.mu.Unlock()
	switch {
	case i < 0:
		return NodeChange{}, fmt.Errorf("%w %s", ErrUnknownNode, name)
	case n.NotReady:
		return NodeChange{Node: n}, fmt.Errorf("node not ready: %s is NotReady already", name)
	case ready <= 1:
		return NodeChange{Node: n}, fmt.Errorf("node not ready: %s is the fleet's last Ready node; no node would be left for pods and instance targets", name)
	}
	c := live.opts.Client
	node := &corev1.Node{}
	err := retry.OnError(apiretry.Contended, apiretry.Retriable, func() error {
		if err := c.Get(ctx, client.ObjectKey{Name: name}, node); err != nil {
			return err
		}
		setNodeNotReady(node, metav1.NewTime(live.opts.Clock.Now()))
		return c.Status().Update(ctx, node)
	})
	if err != nil {
		return NodeChange{Node: n}, fmt.Errorf("node not ready %s: %w", name, err)
	}
	f.mu.Lock()
	f.nodesMu.Lock()
	f.Nodes[i].NotReady = true
	f.nodesMu.Unlock()
	f.notReady++
	n = f.Nodes[i]
	f.mu.Unlock()
	live.opts.Logger.Info("node not ready", "node", n.Name, "instance", n.InstanceID)
	chs, err := f.nodeChanges(ctx, live, ChangeNodeNotReady, n, node.Labels)
	return NodeChange{Node: n, Changes: chs}, err
}

// setNodeNotReady sets the Ready condition False as the node lifecycle controller reports a node
// whose kubelet stopped (the transition and heartbeat are now).
func setNodeNotReady(node *corev1.Node, now metav1.Time) {
	cond := corev1.NodeCondition{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady",
		Message: "kubelet stopped posting node status (node replaced, simulated)", LastHeartbeatTime: now, LastTransitionTime: now}
	for i := range node.Status.Conditions {
		if node.Status.Conditions[i].Type == corev1.NodeReady {
			node.Status.Conditions[i] = cond
			return
		}
	}
	node.Status.Conditions = append(node.Status.Conditions, cond)
}

// ReplaceNode replaces the oldest Ready node, as a node group's instance refresh does: a new node
// joins (JoinNode), then the first node in fleet order that is still Ready (planned nodes first, then
// joined ones in the order they joined) turns NotReady (NodeNotReady). The choice depends only on
// the fleet's history, so a replayed timeline replaces the same nodes. It refuses, before writing
// anything, when no node is Ready.
func (f *FleetPlan) ReplaceNode(ctx context.Context) (Replacement, error) {
	live, err := f.beginNodes()
	if err != nil {
		return Replacement{}, err
	}
	defer f.nodeLock.Unlock()
	f.mu.Lock()
	i := slices.IndexFunc(f.Nodes, func(n NodePlan) bool { return !n.NotReady })
	var old string
	if i >= 0 {
		old = f.Nodes[i].Name
	}
	f.mu.Unlock()
	if i < 0 {
		return Replacement{}, errors.New("replace node: no Ready node to replace")
	}
	var r Replacement
	if r.Joined, err = f.joinNode(ctx, live); err != nil {
		return r, fmt.Errorf("replace node %s: %w", old, err)
	}
	if r.Replaced, err = f.nodeNotReady(ctx, live, old); err != nil {
		return r, fmt.Errorf("replace node %s: %w", old, err)
	}
	return r, nil
}

// nodeChanges returns one Change of kind per instance TGB that targets the node n, whose labels are
// nodeLabels: registering (node-join) or deregistering (node-not-ready) its instance on the TGB's
// NodePort. The TGBs' node selectors are read from the API server, in fleet order; a TGB not
// created yet (AddTGB) is left out, its own Change registers every node.
func (f *FleetPlan) nodeChanges(ctx context.Context, live *liveState, kind string, n NodePlan, nodeLabels map[string]string) ([]FleetChange, error) {
	if _, excluded := nodeLabels[tgbexpect.ExcludeFromLBLabel]; excluded {
		return nil, nil
	}
	var list v1beta1.TargetGroupBindingList
	if err := apiretry.OnTransient(ctx, func() error {
		return live.opts.Client.List(ctx, &list, client.MatchingLabels(live.opts.Labels))
	}); err != nil {
		return nil, fmt.Errorf("%s %s: listing TargetGroupBindings: %w", kind, n.Name, err)
	}
	selectors := make(map[string]*metav1.LabelSelector, len(list.Items))
	for i := range list.Items {
		if tgb := &list.Items[i]; tgb.DeletionTimestamp == nil {
			selectors[tgb.Namespace+"/"+tgb.Name] = tgb.Spec.NodeSelector
		}
	}
	f.mu.Lock()
	var targets []*TGBPlan
	for _, t := range f.TGBs {
		sel, found := selectors[t.Key().String()]
		if !found || t.TargetType != v1beta1.TargetTypeInstance {
			continue
		}
		ok, err := selectorMatches(sel, nodeLabels)
		if err != nil {
			f.mu.Unlock()
			return nil, fmt.Errorf("%s %s: spec.nodeSelector of %s: %w", kind, n.Name, t.Key(), err)
		}
		if ok {
			targets = append(targets, t)
		}
	}
	f.mu.Unlock()
	out := make([]FleetChange, 0, len(targets))
	for _, t := range targets {
		ch := f.newChange(live, kind, t)
		tg := []tgbexpect.Target{{ID: n.InstanceID, Port: t.NodePort}}
		if kind == ChangeNodeJoin {
			ch.Register = tg
		} else {
			ch.Deregister = tg
		}
		out = append(out, ch)
	}
	return out, nil
}

// selectorMatches: a nil selector selects every node, as the controller and Desired read it.
func selectorMatches(sel *metav1.LabelSelector, nodeLabels map[string]string) (bool, error) {
	if sel == nil {
		return true, nil
	}
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, err
	}
	return s.Matches(labels.Set(nodeLabels)), nil
}

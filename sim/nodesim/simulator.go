package nodesim

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/kubesim"
)

// Instances lists EC2 instances without API throttles (sim/backend.Backend satisfies it).
type Instances interface {
	Instances() ([]fakeaws.Instance, error)
}

// Options configures a Simulator. Durations are wall time (the caller applies the run's time scale).
type Options struct {
	// Region names the nodes and labels their topology. Required.
	Region string
	// JoinDelay is how long a registered Node stays NotReady before its kubelet reports Ready
	// (container runtime and CNI starting). Default 0.
	JoinDelay time.Duration
	// RemoveAfter is how long the Node of a shut-down or vanished instance stays NotReady before it
	// is deleted with its pods. Default 0: at the next poll.
	RemoveAfter time.Duration
	// Poll is how often the instances and the nodes' pods are read. Default 100 ms.
	Poll time.Duration
	// LeaseInterval is how often Ready nodes' Leases are renewed. Default 10 s, as the kubelet's.
	LeaseInterval time.Duration
	// Logger. Default logr.Discard().
	Logger logr.Logger
}

// Simulator registers and runs the Nodes of EC2 instances; one goroutine (Run) drives it.
type Simulator struct {
	c     client.Client
	src   Instances
	opts  Options
	now   func() time.Time
	nodes map[string]*tracked // by instance ID
	// done are instances whose Node was registered and has gone: their kubelet never comes back.
	done       map[string]bool
	cidrs      int
	lastLeases time.Time
}

// tracked is the kubelet of one instance.
type tracked struct {
	name       string
	uid        types.UID
	registered time.Time
	ready      bool
	goneAt     time.Time // when the instance was first seen not running; zero while it runs
	cidr       string
	nextIP     int
}

// New returns a Simulator writing through c (an admin client) and reading instances from src.
func New(c client.Client, src Instances, o Options) *Simulator {
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.LeaseInterval <= 0 {
		o.LeaseInterval = 10 * time.Second
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	return &Simulator{c: c, src: src, opts: o, now: time.Now, nodes: map[string]*tracked{}, done: map[string]bool{}}
}

// Run syncs every Poll until ctx ends; a failed round is logged and retried at the next.
func (s *Simulator) Run(ctx context.Context) {
	t := time.NewTicker(s.opts.Poll)
	defer t.Stop()
	for {
		if err := s.SyncOnce(ctx); err != nil && ctx.Err() == nil {
			s.opts.Logger.Info("node simulator round failed; retrying", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// SyncOnce brings the Nodes in line with the instances once: registers running instances' Nodes,
// makes them Ready after the join delay, takes stopped ones NotReady and then away, starts the pods
// bound to Ready nodes and renews leases when due.
func (s *Simulator) SyncOnce(ctx context.Context) error {
	insts, err := s.src.Instances()
	if err != nil {
		return fmt.Errorf("listing instances: %w", err)
	}
	now := s.now()
	byID := make(map[string]fakeaws.Instance, len(insts))
	for _, in := range insts {
		byID[in.ID] = in
		// An instance without a type was seeded by a harness that registers its Node itself (a
		// workload's existing node group); only instances EC2 launched boot a kubelet here.
		if in.InstanceType == "" {
			continue
		}
		if in.State == "running" && s.nodes[in.ID] == nil && !s.done[in.ID] {
			if err := s.register(ctx, in, now); err != nil {
				return err
			}
		}
	}
	ready := map[string]*tracked{}
	for id, t := range s.nodes {
		in, ok := byID[id]
		if err := s.syncNode(ctx, id, t, ok && in.State == "running", now); err != nil {
			return err
		}
		if t.ready && s.nodes[id] != nil {
			ready[t.name] = t
		}
	}
	if err := s.startPods(ctx, ready, now); err != nil {
		return err
	}
	if now.Sub(s.lastLeases) >= s.opts.LeaseInterval {
		s.lastLeases = now
		return s.renewLeases(ctx, now)
	}
	return nil
}

func (s *Simulator) register(ctx context.Context, in fakeaws.Instance, now time.Time) error {
	k, err := ParseUserData(in.UserData)
	if err != nil {
		// A kubelet that cannot read its configuration never registers; the run goes on without it.
		s.opts.Logger.Info("instance's user data unreadable; its node never joins", "instance", in.ID, "error", err.Error())
		s.done[in.ID] = true
		return nil
	}
	node, err := nodeObject(in, s.opts.Region, k, podCIDR(s.cidrs), metav1.NewTime(now))
	if err != nil {
		s.opts.Logger.Info("instance cannot become a node", "instance", in.ID, "error", err.Error())
		s.done[in.ID] = true
		return nil
	}
	status := node.Status
	if err := s.c.Create(ctx, node); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("registering node %s: %w", node.Name, err)
	}
	// Create drops the status: the kubelet writes it next, as here, over whatever the controller
	// under test wrote to the Node meanwhile (its labels and taints: a conflict, read again).
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if node.ResourceVersion == "" {
			if err := s.c.Get(ctx, client.ObjectKeyFromObject(node), node); err != nil {
				return err
			}
		}
		node.Status = status
		err := s.c.Status().Update(ctx, node)
		if apierrors.IsConflict(err) {
			node.ResourceVersion = ""
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("node %s status: %w", node.Name, err)
	}
	s.cidrs++
	s.nodes[in.ID] = &tracked{name: node.Name, uid: node.UID, registered: now, cidr: node.Spec.PodCIDR, nextIP: 2}
	s.opts.Logger.V(1).Info("node registered", "node", node.Name, "instance", in.ID)
	return nil
}

// syncNode advances one instance's Node.
func (s *Simulator) syncNode(ctx context.Context, id string, t *tracked, running bool, now time.Time) error {
	var err error
	switch {
	case running && !t.ready && now.Sub(t.registered) >= s.opts.JoinDelay:
		err = s.setReady(ctx, t, corev1.ConditionTrue, "KubeletReady", "kubelet is posting ready status", now)
		t.ready = err == nil
	case !running && t.goneAt.IsZero():
		t.goneAt, t.ready = now, false
		err = s.setReady(ctx, t, corev1.ConditionUnknown, "NodeStatusUnknown", "Kubelet stopped posting node status.", now)
	case !running && now.Sub(t.goneAt) >= s.opts.RemoveAfter:
		err = s.remove(ctx, t)
		if err == nil {
			delete(s.nodes, id)
			s.done[id] = true
		}
	}
	if apierrors.IsNotFound(err) { // deleted by someone else (the controller under test): gone for good
		delete(s.nodes, id)
		s.done[id] = true
		return nil
	}
	return err
}

func (s *Simulator) setReady(ctx context.Context, t *tracked, status corev1.ConditionStatus, reason, msg string, now time.Time) error {
	var node corev1.Node
	if err := s.c.Get(ctx, client.ObjectKey{Name: t.name}, &node); err != nil {
		return err
	}
	setReady(&node, status, reason, msg, metav1.NewTime(now))
	if err := s.c.Status().Update(ctx, &node); err != nil || status != corev1.ConditionTrue {
		return err
	}
	// The API server's TaintNodesByCondition admission registers every Node with the not-ready
	// taint; the node lifecycle controller, which a bare API server lacks, lifts it once Ready.
	kept := slices.DeleteFunc(slices.Clone(node.Spec.Taints), func(t corev1.Taint) bool { return t.Key == corev1.TaintNodeNotReady })
	if len(kept) == len(node.Spec.Taints) {
		return nil
	}
	node.Spec.Taints = kept
	return s.c.Update(ctx, &node)
}

// remove deletes the Node's pods, then the Node, as pod garbage collection and the node lifecycle
// controller do for a node whose instance is gone.
func (s *Simulator) remove(ctx context.Context, t *tracked) error {
	var pods corev1.PodList
	if err := s.c.List(ctx, &pods, client.MatchingFields{"spec.nodeName": t.name}); err != nil {
		return err
	}
	for i := range pods.Items {
		if err := s.c.Delete(ctx, &pods.Items[i], client.GracePeriodSeconds(0)); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: t.name}}
	if err := s.c.Delete(ctx, node); err != nil {
		return err
	}
	s.opts.Logger.V(1).Info("node removed", "node", t.name, "pods", len(pods.Items))
	return nil
}

func (s *Simulator) renewLeases(ctx context.Context, now time.Time) error {
	duration := int32(max(40, 4*s.opts.LeaseInterval/time.Second))
	for _, t := range s.nodes {
		if !t.ready {
			continue
		}
		// The Lease names its Node by name and UID, which the kubelet knows from registering it.
		node := corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: t.name, UID: t.uid}}
		if err := kubesim.RenewLease(ctx, s.c, &node, duration, metav1.NewMicroTime(now), nil); err != nil {
			return fmt.Errorf("node %s lease: %w", t.name, err)
		}
	}
	return nil
}

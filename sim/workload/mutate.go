package workload

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/apiretry"
	"github.com/restartsim/restartsim/sim/kubesim"
)

// begin locks the TGB named key against other mutations and returns it with the live state.
func (f *FleetPlan) begin(key types.NamespacedName) (*TGBPlan, *liveState, error) {
	f.mu.Lock()
	live, t := f.live, f.byKey[key]
	f.mu.Unlock()
	if live == nil {
		return nil, nil, ErrNotCreated
	}
	if t == nil {
		return nil, nil, fmt.Errorf("%w %s", ErrUnknownTGB, key)
	}
	t.lock.Lock()
	f.mu.Lock()
	gone := f.byKey[key] != t
	f.mu.Unlock()
	if gone {
		t.lock.Unlock()
		return nil, nil, fmt.Errorf("%w %s (removed)", ErrUnknownTGB, key)
	}
	return t, live, nil
}

// syncSlice rewrites the Service's EndpointSlice from its pods as the API server has them now.
func (f *FleetPlan) syncSlice(ctx context.Context, live *liveState, t *TGBPlan) error {
	_, err := kubesim.SyncSlice(ctx, live.opts.Client, t.Key())
	return err
}

// addPods plans, seeds and starts n new pods of t, appending them to t.Pods.
func (f *FleetPlan) addPods(ctx context.Context, live *liveState, t *TGBPlan, n int) ([]PodPlan, error) {
	f.mu.Lock()
	planned := make([]PodPlan, 0, n)
	for range n {
		p, err := f.planPod(f.rng, t)
		if err != nil {
			f.mu.Unlock()
			return nil, err
		}
		planned = append(planned, p)
	}
	f.mu.Unlock()
	now := metav1.NewTime(live.opts.Clock.Now())
	for i, p := range planned {
		if err := f.seedENI(ctx, live, p); err != nil {
			return planned[:i], err
		}
		if _, err := f.startPod(ctx, live, t, p, now); err != nil {
			return planned[:i], err
		}
		f.mu.Lock()
		t.Pods = append(t.Pods, p)
		f.mu.Unlock()
	}
	return planned, nil
}

// deletePods deletes pods of t (immediately, as a kubelet confirming termination would) and drops them
// from t.Pods.
func (f *FleetPlan) deletePods(ctx context.Context, live *liveState, t *TGBPlan, victims []PodPlan) error {
	for _, p := range victims {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: p.Name}}
		err := apiretry.OnTransient(ctx, func() error { return live.opts.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)) })
		if err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("deleting pod %s/%s: %w", t.Namespace, p.Name, err)
		}
		f.mu.Lock()
		t.Pods = slices.DeleteFunc(t.Pods, func(q PodPlan) bool { return q.Name == p.Name })
		f.mu.Unlock()
	}
	return nil
}

// ScaleService adds (delta > 0) or removes (delta < 0, newest pods first) pods of the TGB's Service and
// updates its EndpointSlice. The FleetChange registers the new ip targets or deregisters the removed ones.
func (f *FleetPlan) ScaleService(ctx context.Context, key types.NamespacedName, delta int) (FleetChange, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer t.lock.Unlock()
	ch := f.newChange(live, ChangeScale, t)
	switch {
	case delta > 0:
		added, err := f.addPods(ctx, live, t, delta)
		ch.Register, ch.Pods = f.podTargets(t, added), gatedPods(t, added)
		if err != nil {
			return ch, err
		}
	case delta < 0:
		f.mu.Lock()
		k := min(-delta, len(t.Pods))
		victims := slices.Clone(t.Pods[len(t.Pods)-k:])
		f.mu.Unlock()
		ch.Deregister = f.podTargets(t, victims)
		if err := f.deletePods(ctx, live, t, victims); err != nil {
			return ch, err
		}
	}
	return ch, f.syncSlice(ctx, live, t)
}

// RotatePodIPs replaces n pods of the TGB (drawn with the fleet's RNG) by new pods with new IPs:
// delete, then create. The FleetChange deregisters the old ip targets and registers the new ones.
func (f *FleetPlan) RotatePodIPs(ctx context.Context, key types.NamespacedName, n int) (FleetChange, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer t.lock.Unlock()
	ch := f.newChange(live, ChangeRotatePodIPs, t)
	f.mu.Lock()
	victims := draw(f.rng, slices.Clone(t.Pods), n)
	f.mu.Unlock()
	ch.Deregister = f.podTargets(t, victims)
	if err := f.deletePods(ctx, live, t, victims); err != nil {
		return ch, err
	}
	added, err := f.addPods(ctx, live, t, len(victims))
	ch.Register, ch.Pods = f.podTargets(t, added), gatedPods(t, added)
	if err != nil {
		return ch, err
	}
	return ch, f.syncSlice(ctx, live, t)
}

// AddTGB plans one more TGB with the fleet's RNG (target type, readiness gate and networking drawn with
// the spec's shares as probabilities) and creates it like Create does. The FleetChange registers all its
// targets.
func (f *FleetPlan) AddTGB(ctx context.Context) (FleetChange, error) {
	f.mu.Lock()
	live := f.live
	if live == nil {
		f.mu.Unlock()
		return FleetChange{}, ErrNotCreated
	}
	kind := v1beta1.TargetTypeIP
	if f.rng.Float64() < f.Spec.InstanceShare {
		kind = v1beta1.TargetTypeInstance
	}
	gate := kind == v1beta1.TargetTypeIP && f.rng.Float64() < f.Spec.ReadinessGateShare
	src := NetworkingNone
	if f.rng.Float64() < f.Spec.NetworkingShare {
		src = NetworkingSecurityGroup
		if f.rng.IntN(2) == 1 {
			src = NetworkingIPBlock
		}
	}
	t, err := f.planTGB(f.rng, kind, gate, src)
	f.mu.Unlock()
	if err != nil {
		return FleetChange{}, err
	}
	t.lock.Lock()
	defer t.lock.Unlock()
	cnt := live.uncounted()
	if err := f.provisionTGB(ctx, live, t, cnt); err != nil {
		return FleetChange{}, err
	}
	if err := f.createTGBObjects(ctx, live, t, metav1.NewTime(live.opts.Clock.Now()), cnt); err != nil {
		return FleetChange{}, err
	}
	f.mu.Lock()
	f.addTGB(t)
	f.mu.Unlock()
	ch := f.newChange(live, ChangeAddTGB, t)
	ch.Register, ch.Pods = f.allTargets(t), gatedPods(t, t.Pods)
	return ch, f.createTGB(ctx, live, t, cnt)
}

// RemoveTGB deletes the TGB (its controller deregisters the targets and drops its finalizer), then its
// EndpointSlice, pods and Service. The FleetChange deregisters all its targets.
func (f *FleetPlan) RemoveTGB(ctx context.Context, key types.NamespacedName) (FleetChange, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer t.lock.Unlock()
	ch := f.newChange(live, ChangeRemoveTGB, t)
	ch.Deregister = f.allTargets(t)
	f.mu.Lock()
	f.TGBs = slices.DeleteFunc(f.TGBs, func(o *TGBPlan) bool { return o == t })
	delete(f.byKey, key)
	pods := slices.Clone(t.Pods)
	f.mu.Unlock()
	c := live.opts.Client
	meta := metav1.ObjectMeta{Namespace: t.Namespace, Name: t.Name}
	objs := []client.Object{
		&v1beta1.TargetGroupBinding{ObjectMeta: meta},
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: kubesim.SliceName(t.Name)}},
	}
	if t.DuplicateEndpoint {
		objs = append(objs, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: duplicateSliceName(t.Name)}})
	}
	for _, obj := range objs {
		if err := apiretry.OnTransient(ctx, func() error { return c.Delete(ctx, obj) }); err != nil && !apierrors.IsNotFound(err) {
			return ch, fmt.Errorf("deleting %T %s: %w", obj, key, err)
		}
	}
	if err := f.deletePods(ctx, live, t, pods); err != nil {
		return ch, err
	}
	svc := &corev1.Service{ObjectMeta: meta}
	if err := apiretry.OnTransient(ctx, func() error { return c.Delete(ctx, svc) }); err != nil && !apierrors.IsNotFound(err) {
		return ch, fmt.Errorf("deleting service %s: %w", key, err)
	}
	return ch, nil
}

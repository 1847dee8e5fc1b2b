package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Target is a target-group target: pod IP and container port (ip) or instance ID and NodePort (instance).
type Target struct {
	ID   string
	Port int32
}

func (t Target) String() string { return fmt.Sprintf("%s:%d", t.ID, t.Port) }

// Change kinds.
const (
	ChangeScale            = "scale"
	ChangeRotatePodIPs     = "rotate-pod-ips"
	ChangeAddTGB           = "add-tgb"
	ChangeRemoveTGB        = "remove-tgb"
	ChangeContainerRestart = "container-restart"
)

// Change is what a mutation changed that a controller must apply in AWS.
type Change struct {
	// ID is unique within the fleet: <kind>-<sequence>.
	ID   string
	Kind string
	TGB  types.NamespacedName
	// TargetGroupARN is the TGB's target group.
	TargetGroupARN string
	// Register and Deregister are the net target changes. A container restart has none: its target is
	// deregistered and registered again, which leaves the set unchanged.
	Register, Deregister []Target
	// Pods are the pods whose readiness gate for this TGB must (again) turn True before the change is
	// complete: new gated pods, or the restarted pod of a gated TGB.
	Pods []types.NamespacedName
}

// ErrUnknownTGB is returned for a TGB or pod the fleet does not hold.
var ErrUnknownTGB = errors.New("workload: unknown TargetGroupBinding")

// TGBInfo is a snapshot of one TGB, for choosing.
type TGBInfo struct {
	Key            types.NamespacedName
	TargetType     v1beta1.TargetType
	ReadinessGate  bool
	Networking     NetworkingSource
	Pods           int
	TargetGroupARN string
}

// PodInfo is a snapshot of one pod, for choosing.
type PodInfo struct {
	Key  types.NamespacedName
	IP   string
	Node string
	TGB  TGBInfo
}

func (t *TGBPlan) info() TGBInfo {
	return TGBInfo{Key: t.Key(), TargetType: t.TargetType, ReadinessGate: t.ReadinessGate,
		Networking: t.Networking, Pods: len(t.Pods), TargetGroupARN: t.TargetGroupARN}
}

// TGB returns a snapshot of the TGB named key.
func (f *Fleet) TGB(key types.NamespacedName) (TGBInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.byKey[key]
	if !ok {
		return TGBInfo{}, false
	}
	return t.info(), true
}

// TGBCount is the number of live TGBs.
func (f *Fleet) TGBCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.TGBs)
}

// ChooseTGBs draws up to n distinct TGBs that pass filter (nil: all), uniformly with rng, in draw order.
func (f *Fleet) ChooseTGBs(rng *rand.Rand, n int, filter func(TGBInfo) bool) []types.NamespacedName {
	f.mu.Lock()
	var cands []types.NamespacedName
	for _, t := range f.TGBs {
		if filter == nil || filter(t.info()) {
			cands = append(cands, t.Key())
		}
	}
	f.mu.Unlock()
	return draw(rng, cands, n)
}

// ChoosePods draws up to n distinct pods that pass filter (nil: all), uniformly with rng, in draw order.
func (f *Fleet) ChoosePods(rng *rand.Rand, n int, filter func(PodInfo) bool) []types.NamespacedName {
	f.mu.Lock()
	var cands []types.NamespacedName
	for _, t := range f.TGBs {
		ti := t.info()
		for _, p := range t.Pods {
			pi := PodInfo{Key: types.NamespacedName{Namespace: t.Namespace, Name: p.Name}, IP: p.IP, Node: f.Nodes[p.Node].Name, TGB: ti}
			if filter == nil || filter(pi) {
				cands = append(cands, pi.Key)
			}
		}
	}
	f.mu.Unlock()
	return draw(rng, cands, n)
}

// draw is a partial Fisher-Yates shuffle: the first min(n, len) of a uniform permutation.
func draw[T any](rng *rand.Rand, items []T, n int) []T {
	n = min(max(n, 0), len(items))
	for i := range n {
		j := i + rng.IntN(len(items)-i)
		items[i], items[j] = items[j], items[i]
	}
	return items[:n:n]
}

// begin locks the TGB named key against other mutations and returns it with the live state.
func (f *Fleet) begin(key types.NamespacedName) (*TGBPlan, *liveState, error) {
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

func (f *Fleet) newChange(live *liveState, kind string, t *TGBPlan) Change {
	f.mu.Lock()
	live.changes++
	id := fmt.Sprintf("%s-%04d", kind, live.changes)
	f.mu.Unlock()
	return Change{ID: id, Kind: kind, TGB: t.Key(), TargetGroupARN: t.TargetGroupARN}
}

// podTargets are the ip targets of pods (none for instance TGBs, whose targets are nodes).
func (f *Fleet) podTargets(t *TGBPlan, pods []PodPlan) []Target {
	if t.TargetType != v1beta1.TargetTypeIP {
		return nil
	}
	out := make([]Target, 0, len(pods))
	for _, p := range pods {
		out = append(out, Target{ID: p.IP, Port: f.Spec.Port})
	}
	return out
}

// allTargets are every target of t: its pods (ip) or every Ready node on its NodePort (instance; the
// fleet's TGBs carry no nodeSelector).
func (f *Fleet) allTargets(t *TGBPlan) []Target {
	if t.TargetType == v1beta1.TargetTypeIP {
		return f.podTargets(t, t.Pods)
	}
	f.nodesMu.RLock()
	defer f.nodesMu.RUnlock()
	out := make([]Target, 0, len(f.Nodes))
	for _, n := range f.Nodes {
		if !n.NotReady {
			out = append(out, Target{ID: n.InstanceID, Port: t.NodePort})
		}
	}
	return out
}

func gatedPods(t *TGBPlan, pods []PodPlan) []types.NamespacedName {
	if !t.ReadinessGate {
		return nil
	}
	out := make([]types.NamespacedName, 0, len(pods))
	for _, p := range pods {
		out = append(out, types.NamespacedName{Namespace: t.Namespace, Name: p.Name})
	}
	return out
}

// addPods plans, seeds and starts n new pods of t, appending them to t.Pods.
func (f *Fleet) addPods(ctx context.Context, live *liveState, t *TGBPlan, n int) ([]PodPlan, error) {
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
	now := metav1.NewTime(live.opts.now())
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
func (f *Fleet) deletePods(ctx context.Context, live *liveState, t *TGBPlan, victims []PodPlan) error {
	for _, p := range victims {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: p.Name}}
		err := retryTransient(ctx, func() error { return live.opts.Client.Delete(ctx, pod, client.GracePeriodSeconds(0)) })
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
// updates its EndpointSlice. The Change registers the new ip targets or deregisters the removed ones.
func (f *Fleet) ScaleService(ctx context.Context, key types.NamespacedName, delta int) (Change, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return Change{}, err
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
// delete, then create. The Change deregisters the old ip targets and registers the new ones.
func (f *Fleet) RotatePodIPs(ctx context.Context, key types.NamespacedName, n int) (Change, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return Change{}, err
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
// the spec's shares as probabilities) and creates it like Create does. The Change registers all its
// targets.
func (f *Fleet) AddTGB(ctx context.Context) (Change, error) {
	f.mu.Lock()
	live := f.live
	if live == nil {
		f.mu.Unlock()
		return Change{}, ErrNotCreated
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
		return Change{}, err
	}
	t.lock.Lock()
	defer t.lock.Unlock()
	cnt := live.uncounted()
	if err := f.provisionTGB(ctx, live, t, cnt); err != nil {
		return Change{}, err
	}
	if err := f.createTGBObjects(ctx, live, t, metav1.NewTime(live.opts.now()), cnt); err != nil {
		return Change{}, err
	}
	f.mu.Lock()
	f.addTGB(t)
	f.mu.Unlock()
	ch := f.newChange(live, ChangeAddTGB, t)
	ch.Register, ch.Pods = f.allTargets(t), gatedPods(t, t.Pods)
	return ch, f.createTGB(ctx, live, t, cnt)
}

// RemoveTGB deletes the TGB (its controller deregisters the targets and drops its finalizer), then its
// EndpointSlice, pods and Service. The Change deregisters all its targets.
func (f *Fleet) RemoveTGB(ctx context.Context, key types.NamespacedName) (Change, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return Change{}, err
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
	for _, obj := range []client.Object{
		&v1beta1.TargetGroupBinding{ObjectMeta: meta},
		&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: sliceName(t.Name)}},
	} {
		if err := retryTransient(ctx, func() error { return c.Delete(ctx, obj) }); err != nil && !apierrors.IsNotFound(err) {
			return ch, fmt.Errorf("deleting %T %s: %w", obj, key, err)
		}
	}
	if err := f.deletePods(ctx, live, t, pods); err != nil {
		return ch, err
	}
	svc := &corev1.Service{ObjectMeta: meta}
	if err := retryTransient(ctx, func() error { return c.Delete(ctx, svc) }); err != nil && !apierrors.IsNotFound(err) {
		return ch, fmt.Errorf("deleting service %s: %w", key, err)
	}
	return ch, nil
}

// syncSlice rewrites the Service's EndpointSlice from its pods as the API server has them now.
func (f *Fleet) syncSlice(ctx context.Context, live *liveState, t *TGBPlan) error {
	_, err := syncSlice(ctx, live.opts.Client, t.Key())
	return err
}

// contendedRetry retries writes that race other writers of the same object (a churn step and the
// simulated endpoint controller both sync a slice after a pod change): client-go's DefaultRetry
// (5 tries within ~50 ms) can run out while the other writer is still busy on a loaded machine.
var contendedRetry = wait.Backoff{Steps: 10, Duration: 10 * time.Millisecond, Factor: 2, Jitter: 0.5}

// retriable: a conflict with another writer, or a transient API error.
func retriable(err error) bool { return apierrors.IsConflict(err) || transient(err) }

// syncSlice brings the EndpointSlice of the Service svc in line with the Service's pods, reading both
// from the API server: first the slice, then the pods, and updating under the slice's
// resourceVersion. The pods are thus never older than the slice, and any concurrent slice writer makes
// the update conflict (and retry) instead of being overwritten with older state. This makes the
// mutations and the Simulator safe as concurrent writers. It reports whether it wrote; a missing slice
// is left alone.
func syncSlice(ctx context.Context, c client.Client, svc types.NamespacedName) (bool, error) {
	wrote := false
	err := retry.OnError(contendedRetry, retriable, func() error {
		slice := &discoveryv1.EndpointSlice{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: svc.Namespace, Name: sliceName(svc.Name)}, slice); err != nil {
			return client.IgnoreNotFound(err)
		}
		var pods corev1.PodList
		if err := c.List(ctx, &pods, client.InNamespace(svc.Namespace), client.MatchingLabels{ServiceLabel: svc.Name}); err != nil {
			return err
		}
		ptrs := make([]*corev1.Pod, len(pods.Items))
		for i := range pods.Items {
			ptrs[i] = &pods.Items[i]
		}
		want := Endpoints(ptrs)
		if endpointsEqual(slice.Endpoints, want) {
			return nil
		}
		slice.Endpoints = want
		if err := c.Update(ctx, slice); err != nil {
			return client.IgnoreNotFound(err)
		}
		wrote = true
		return nil
	})
	return wrote, err
}

// tgbOfPod finds the TGB a pod of the fleet belongs to (pods are named <service>-<ordinal>).
func (f *Fleet) tgbOfPod(pod types.NamespacedName) (types.NamespacedName, bool) {
	i := strings.LastIndexByte(pod.Name, '-')
	if i < 0 {
		return types.NamespacedName{}, false
	}
	key := types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name[:i]}
	f.mu.Lock()
	defer f.mu.Unlock()
	t, ok := f.byKey[key]
	return key, ok && slices.ContainsFunc(t.Pods, func(p PodPlan) bool { return p.Name == pod.Name })
}

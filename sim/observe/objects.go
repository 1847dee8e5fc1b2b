package observe

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/poll"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/objects"
)

// Objects watches the objects of a scenario's object groups, in the run's namespaces, and reads
// AWS's state for their conditions. Reading AWS's state spends no throttle tokens and records no
// calls, so the controller under test cannot tell it is watched.
type Objects struct {
	Fleet *objects.CompiledGroups
	aws   objects.AWSState
	cache cache.Cache
	// events counts the watch's adds, updates and deletes: a sign that something changes them.
	events atomic.Uint64
}

// AWSStateOf is the state of an in-process fakeaws, which conditions over AWS read; a standalone
// fakeaws (--aws-endpoint) has none to give.
func AWSStateOf(b backend.Backend) (objects.AWSState, error) {
	if l, ok := b.(interface{ InProcess() *fakeaws.Server }); ok {
		return l.InProcess(), nil
	}
	return nil, fmt.Errorf("object groups read AWS's state from the in-process fakeaws; a standalone one (%s) does not serve it", b.URL())
}

// StartObjects starts informers of every group's kind in namespaces and waits for their sync.
func StartObjects(ctx context.Context, cfg *rest.Config, f *objects.CompiledGroups, aws objects.AWSState, namespaces []string) (*Objects, error) {
	nss := map[string]cache.Config{}
	for _, ns := range namespaces {
		nss[ns] = cache.Config{}
	}
	// Reads hand out the cache's own objects, uncopied: every reader (the checks, the applied watch,
	// the warm-up's refusal watch) only reads them, and at thousands of objects polled every few
	// hundred milliseconds the deep copies were the harness's largest CPU cost.
	c, err := cache.New(cfg, cache.Options{Scheme: env.Scheme, DefaultNamespaces: nss, DefaultTransform: cache.TransformStripManagedFields(),
		DefaultUnsafeDisableDeepCopy: ptr.To(true)})
	if err != nil {
		return nil, err
	}
	o := &Objects{Fleet: f, aws: aws, cache: c}
	for _, g := range f.Groups() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(f.Kind(g))
		inf, err := c.GetInformer(ctx, u)
		if err != nil {
			return nil, fmt.Errorf("watching group %s (%s): %w", g, f.Kind(g), err)
		}
		count := func(any) { o.events.Add(1) }
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: count,
			UpdateFunc: func(any, any) { o.events.Add(1) }, DeleteFunc: count}); err != nil {
			return nil, fmt.Errorf("watching group %s (%s): %w", g, f.Kind(g), err)
		}
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) {
		return nil, fmt.Errorf("the object groups' watch did not sync: %w", context.Cause(ctx))
	}
	return o, nil
}

// Changes counts every add, update and delete the watch has seen of the groups' objects.
func (o *Objects) Changes() uint64 { return o.events.Load() }

// Changes counts every add, update and delete seen of the groups' objects (Objects.Changes).
func (a *ObjectsApplied) Changes() uint64 {
	if a == nil {
		return 0
	}
	return a.objs.Changes()
}

// List returns every watched object of every group: the cache's own, to read and never to change.
func (o *Objects) List(ctx context.Context) ([]*unstructured.Unstructured, error) {
	var out []*unstructured.Unstructured
	for _, g := range o.Fleet.Groups() {
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(o.Fleet.Kind(g).GroupVersion().WithKind(o.Fleet.Kind(g).Kind + "List"))
		if err := o.cache.List(ctx, l, client.HasLabels{objects.GroupLabel}); err != nil {
			return nil, err
		}
		for i := range l.Items {
			out = append(out, &l.Items[i])
		}
	}
	return out, nil
}

// Snapshot reads AWS's state for the groups' conditions.
func (o *Objects) Snapshot() (*objects.Snapshot, error) {
	return objects.TakeSnapshot(o.aws, o.Fleet.AWSKinds()...)
}

// Status evaluates every object's readiness and invariant now.
func (o *Objects) Status(ctx context.Context) (objects.Status, error) {
	objs, err := o.List(ctx)
	if err != nil {
		return objects.Status{}, err
	}
	snap, err := o.Snapshot()
	if err != nil {
		return objects.Status{}, err
	}
	return o.Fleet.Check(objs, snap), nil
}

// WaitReady waits until every object of groups exists and is ready: the creation of a group that
// comes after them.
func (o *Objects) WaitReady(ctx context.Context, groups []string, timeout time.Duration) error {
	why := ""
	var failed error
	err := poll.Until(ctx, timeout, Paced(200*time.Millisecond), func() (bool, error) {
		st, err := o.Status(ctx)
		if err != nil {
			failed = err
			return false, err
		}
		var ready bool
		ready, why = groupsReady(st, groups)
		return ready, nil
	})
	switch {
	case err == nil || failed != nil:
		return failed
	case errors.Is(err, poll.ErrTimeout):
		return fmt.Errorf("groups %v were not ready within %s: %s", groups, timeout, why)
	default: // the run ended: say why it did
		return context.Cause(ctx)
	}
}

func groupsReady(st objects.Status, groups []string) (bool, string) {
	for _, g := range st.Groups {
		if !slices.Contains(groups, g.Name) || g.Ready == g.Count {
			continue
		}
		why := fmt.Sprintf("group %s: %d of %d present, %d ready", g.Name, g.Present, g.Count, g.Ready)
		if len(g.NotReady) > 0 {
			why += fmt.Sprintf("; %s: %s", g.NotReady[0].Key, g.NotReady[0].Reason)
		}
		return false, why
	}
	return true, ""
}

// ObjectsApplied polls AWS's state for the object changes it tracks and keeps when each was first
// seen applied: its Applied condition holding over the object as patched and its AWS resource.
// A later change of the same object supersedes an earlier one, which then counts as applied with
// it: the controller applies the object's current spec, which holds every change made before.
type ObjectsApplied struct {
	objs *Objects

	mu      sync.Mutex
	pending map[string]*objects.ObjectChange
	seen    map[string]time.Time
	ids     map[string]string // resource identities of the changes seen
}

// StartObjectsApplied polls every interval until ctx ends.
func StartObjectsApplied(ctx context.Context, objs *Objects, interval time.Duration) *ObjectsApplied {
	a := &ObjectsApplied{objs: objs, pending: map[string]*objects.ObjectChange{}, seen: map[string]time.Time{}, ids: map[string]string{}}
	go pollEvery(ctx, interval, a.poll)
	return a
}

// Track watches for the change id to be applied. The watch may then resolve ch.ResourceID at any
// time: the caller reads ch before Track, and afterwards only through ResourceID.
func (a *ObjectsApplied) Track(id string, ch *objects.ObjectChange) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.pending[id] = ch
}

// SeenAt is when the change id was first seen applied.
func (a *ObjectsApplied) SeenAt(id string) (time.Time, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.seen[id]
	return t, ok
}

// ResourceID is the identity of the AWS resource of the change id, once known.
func (a *ObjectsApplied) ResourceID(id string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if ch, ok := a.pending[id]; ok {
		return ch.ResourceID
	}
	return a.ids[id]
}

// poll judges the pending changes on the objects and AWS, and records those applied at now().
func (a *ObjectsApplied) poll(now func() time.Time) {
	a.mu.Lock()
	pending := maps.Clone(a.pending)
	a.mu.Unlock()
	if len(pending) == 0 {
		return
	}
	snap, err := a.objs.Snapshot()
	if err != nil {
		return
	}
	if slices.ContainsFunc(slices.Collect(maps.Values(pending)), (*objects.ObjectChange).NeedsObjects) {
		// A create or delete, or a condition that follows references, is judged on the objects
		// as the watch holds them now, beside AWS's state.
		objs, err := a.objs.List(context.Background())
		if err != nil {
			return
		}
		snap = snap.WithObjects(a.objs.Fleet.IndexObjects(objs))
	}
	var applied []string
	for id, ch := range pending {
		a.mu.Lock()
		ch.ResolveResourceID(snap) // a resource found by name may be made after the patch
		a.mu.Unlock()
		if ok, _ := ch.Applied(snap); ok {
			applied = append(applied, id)
		}
	}
	at := now() // once the state was read: see IngressApplied.poll
	for _, id := range applied {
		a.applied(id, pending[id], at)
	}
}

// applied records the change id, and every earlier one of its object still pending, seen at now.
func (a *ObjectsApplied) applied(id string, ch *objects.ObjectChange, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for other, o := range a.pending {
		if other == id || o.Group == ch.Group && o.Key == ch.Key && o.Seq < ch.Seq {
			delete(a.pending, other)
			a.seen[other] = now
			a.ids[other] = o.ResourceID
		}
	}
}

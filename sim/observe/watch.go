package observe

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

const gatePrefix = "target-health.elbv2.k8s.aws/"

// transition is a readiness-gate value seen from a moment on.
type transition struct {
	At   time.Time
	True bool
}

// Watch records, from the API server's watch, every change of every readiness-gate condition
// of the run's pods: the source of the readiness-gate flip latency.
//
// It also records every change of a TGB's checkpoint annotations, so that a run without an audit
// log (a --kubeconfig cluster) can still count the controller's checkpoint writes from the API
// server's side.
type Watch struct {
	mu    sync.Mutex
	gates map[string][]transition // pod/gate → value changes in order
	// ckpt is the time of each observed checkpoint annotation change.
	ckpt     []time.Time
	lastCkpt map[string]string
	// The run's objects, which the invariant checks poll: the simulator's pod and slice informers,
	// and informers of the watch's own for the rest.
	pods, slices toolscache.SharedIndexInformer
	informers    cache.Cache
	// sim owns pods and slices; a snapshot of them in which it lags is not judged.
	sim *kubesim.Simulator
	// loadBalancers: the watch also sees Ingresses, Secrets and the controller's bindings, which
	// count in tgbNamespaces only (nil: every watched binding is the run's).
	loadBalancers bool
	tgbNamespaces map[string]bool
}

// ours reports whether a watched binding is the run's.
func (w *Watch) ours(t *v1beta1.TargetGroupBinding) bool {
	return w.tgbNamespaces == nil || w.tgbNamespaces[t.Namespace]
}

// LoadBalancerSide asks a watch to also see the fleet's load balancer side: its Ingresses and
// Secrets, and every TargetGroupBinding in Namespaces, the fleet's, since the bindings of an
// Ingress or Service are the controller's, labelled its own way rather than with the run's labels.
type LoadBalancerSide struct {
	Namespaces []string
}

// StartWatch starts the watch on the simulator's pod and slice informers (synced) and informers
// of its own for bindings, Services and Nodes (and with lb, the load balancer side); it returns
// once they have synced.
func StartWatch(ctx context.Context, cfg *rest.Config, runLabels map[string]string, sim *kubesim.Simulator, lb *LoadBalancerSide) (*Watch, error) {
	w := &Watch{gates: map[string][]transition{}, lastCkpt: map[string]string{}, pods: sim.PodInformer(), slices: sim.SliceInformer(),
		sim: sim, loadBalancers: lb != nil}
	opts := cache.Options{Scheme: env.Scheme, DefaultLabelSelector: labels.SelectorFromSet(runLabels),
		DefaultTransform: cache.TransformStripManagedFields()}
	kinds := []client.Object{&corev1.Service{}, &corev1.Node{}}
	if lb != nil {
		// One informer over every binding (a store to read, unlike a multi-namespace one), narrowed to
		// the fleet's namespaces when read.
		// The IngressClass and its parameters may be a cluster's own (an LBC installation's), not the run's.
		opts.ByObject = map[client.Object]cache.ByObject{&v1beta1.TargetGroupBinding{}: {Label: labels.Everything()},
			&networkingv1.IngressClass{}: {Label: labels.Everything()}, &v1beta1.IngressClassParams{}: {Label: labels.Everything()}}
		kinds = append(kinds, &networkingv1.Ingress{}, &corev1.Secret{}, &networkingv1.IngressClass{}, &v1beta1.IngressClassParams{})
		w.tgbNamespaces = map[string]bool{}
		for _, n := range lb.Namespaces {
			w.tgbNamespaces[n] = true
		}
	}
	c, err := cache.New(cfg, opts)
	if err != nil {
		return nil, err
	}
	w.informers = c
	for _, obj := range kinds {
		if _, err := c.GetInformer(ctx, obj); err != nil {
			return nil, err
		}
	}
	on := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok {
			w.observe(p, time.Now())
		}
	}
	reg, err := w.pods.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: on, UpdateFunc: func(_, n any) { on(n) }})
	if err != nil {
		return nil, err
	}
	pods := w.pods
	context.AfterFunc(ctx, func() { _ = pods.RemoveEventHandler(reg) })
	tinf, err := c.GetInformer(ctx, &v1beta1.TargetGroupBinding{})
	if err != nil {
		return nil, err
	}
	onTGB := func(obj any) {
		if t, ok := obj.(*v1beta1.TargetGroupBinding); ok && w.ours(t) {
			w.observeTGB(t, time.Now())
		}
	}
	if _, err := tinf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: onTGB, UpdateFunc: func(_, n any) { onTGB(n) }}); err != nil {
		return nil, err
	}
	go func() { _ = c.Start(ctx) }()
	if !c.WaitForCacheSync(ctx) || !toolscache.WaitForCacheSync(ctx.Done(), reg.HasSynced) {
		return nil, ctx.Err()
	}
	return w, nil
}

// Release drops the watch's informers (every object of the fleet); the records stay.
func (w *Watch) Release() { w.pods, w.slices, w.informers, w.sim = nil, nil, nil, nil }

func (w *Watch) observe(p *corev1.Pod, now time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, g := range p.Spec.ReadinessGates {
		ct := string(g.ConditionType)
		if !strings.HasPrefix(ct, gatePrefix) {
			continue
		}
		val := gateTrue(p, ct)
		key := p.Namespace + "/" + p.Name
		hist := w.gates[key]
		if len(hist) == 0 || hist[len(hist)-1].True != val {
			w.gates[key] = append(hist, transition{now, val})
		}
	}
}

func (w *Watch) observeTGB(t *v1beta1.TargetGroupBinding, now time.Time) {
	var parts []string
	for k, v := range t.Annotations {
		if strings.HasPrefix(k, "elbv2.k8s.aws/checkpoint") {
			parts = append(parts, k+"="+v)
		}
	}
	sort.Strings(parts)
	val := strings.Join(parts, ",")
	key := t.Namespace + "/" + t.Name
	w.mu.Lock()
	defer w.mu.Unlock()
	if old, seen := w.lastCkpt[key]; seen && old != val {
		w.ckpt = append(w.ckpt, now)
	}
	w.lastCkpt[key] = val
}

// WithoutCheckpoint counts the watched bindings that carry no checkpoint (a real value always
// contains "/"; the reset value is empty).
func (w *Watch) WithoutCheckpoint() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := 0
	for _, v := range w.lastCkpt {
		has := false
		for _, part := range strings.Split(v, ",") {
			if val, ok := strings.CutPrefix(part, CheckpointAnnotation+"="); ok && strings.Contains(val, "/") {
				has = true
			}
		}
		if !has {
			n++
		}
	}
	return n
}

// WatchedWrites derives the controller's checkpoint patches and gate patches after t0 from the
// watch: the fallback when the API server keeps no audit log for the simulation.
func (w *Watch) WatchedWrites(t0 time.Time, toSec func(time.Time) float64) []measure.AuditEvent {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []measure.AuditEvent
	for _, t := range w.ckpt {
		if !t.Before(t0) {
			out = append(out, measure.AuditEvent{At: toSec(t), Verb: "patch", Resource: "targetgroupbindings", Code: 200})
		}
	}
	for _, hist := range w.gates {
		for _, tr := range hist {
			if !tr.At.Before(t0) {
				out = append(out, measure.AuditEvent{At: toSec(tr.At), Verb: "patch", Resource: "pods", Subresource: "status", Code: 200})
			}
		}
	}
	return out
}

// LoadBalancerObjects are the watched inputs of the load balancer stacks (nil without the load
// balancer side); the objects are only read.
func (w *Watch) LoadBalancerObjects(ctx context.Context) (*LoadBalancerObjects, error) {
	if !w.loadBalancers {
		return nil, nil
	}
	o := &LoadBalancerObjects{}
	var err error
	if o.Ingresses, err = storedValues[networkingv1.Ingress](ctx, w.informers); err != nil {
		return nil, err
	}
	if o.Services, err = storedValues[corev1.Service](ctx, w.informers); err != nil {
		return nil, err
	}
	if o.Secrets, err = storedValues[corev1.Secret](ctx, w.informers); err != nil {
		return nil, err
	}
	if o.IngressClasses, err = storedValues[networkingv1.IngressClass](ctx, w.informers); err != nil {
		return nil, err
	}
	if o.ClassParams, err = storedValues[v1beta1.IngressClassParams](ctx, w.informers); err != nil {
		return nil, err
	}
	return o, nil
}

// Exists reports whether the watch cache holds the pod named namespace/name.
func (w *Watch) Exists(pod string) bool {
	_, ok, err := w.pods.GetStore().GetByKey(pod)
	return ok || err != nil
}

// Flip returns when pod's gate turned True after it was (or became) not True at or after from;
// ok false when it never flipped.
func (w *Watch) Flip(pod string, from time.Time) (time.Time, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	hist := w.gates[pod]
	falseSeen := len(hist) == 0 // unobserved so far: a new pod starts without the condition
	for _, t := range hist {
		if !t.At.After(from) {
			falseSeen = !t.True
			continue
		}
		if !t.True {
			falseSeen = true
		} else if falseSeen {
			return t.At, true
		}
	}
	return time.Time{}, false
}

// Objects returns the run's objects as the informers hold them, without copying: the invariant
// checks poll this, and a list of the 30,000 pods at 10k bindings would copy 37 MB of structs
// each time. The objects are only read.
func (w *Watch) Objects(ctx context.Context) (tgbexpect.Objects, error) {
	o := tgbexpect.Objects{Pods: fromStore[*corev1.Pod](w.pods.GetStore()), Slices: fromStore[*discoveryv1.EndpointSlice](w.slices.GetStore())}
	var err error
	if o.TGBs, err = stored[*v1beta1.TargetGroupBinding](ctx, w.informers); err != nil {
		return o, err
	}
	if w.tgbNamespaces != nil {
		o.TGBs = slices.DeleteFunc(o.TGBs, func(t *v1beta1.TargetGroupBinding) bool { return !w.ours(t) })
	}
	if o.Services, err = stored[*corev1.Service](ctx, w.informers); err != nil {
		return o, err
	}
	o.Nodes, err = stored[*corev1.Node](ctx, w.informers)
	return o, err
}

// stored lists the objects of T's informer in c from its store. A controller-runtime informer is
// a client-go shared informer, whose store hands out its own pointers.
func stored[T client.Object](ctx context.Context, c cache.Cache) ([]T, error) {
	var zero T
	obj := reflect.New(reflect.TypeOf(zero).Elem()).Interface().(T)
	inf, err := c.GetInformer(ctx, obj)
	if err != nil {
		return nil, err
	}
	s, ok := inf.(interface{ GetStore() toolscache.Store })
	if !ok {
		return nil, fmt.Errorf("the informer of %T (%T) has no store", obj, inf)
	}
	return fromStore[T](s.GetStore()), nil
}

// storedValues is stored with the objects as values: shallow copies, only to be read.
func storedValues[T any, P interface {
	*T
	client.Object
}](ctx context.Context, c cache.Cache) ([]T, error) {
	objs, err := stored[P](ctx, c)
	if err != nil {
		return nil, err
	}
	out := make([]T, len(objs))
	for i, o := range objs {
		out[i] = *o
	}
	return out, nil
}

func fromStore[T any](s toolscache.Store) []T {
	items := s.List()
	out := make([]T, 0, len(items))
	for _, it := range items {
		if o, ok := it.(T); ok {
			out = append(out, o)
		}
	}
	return out
}

package controller

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestInitialFanOutSkipped: a secondary object's initial-list Create maps to no binding unless
// it could change the queue (priority queue with normal-priority handlers, as upstream), and
// every other event still maps.
func TestInitialFanOutSkipped(t *testing.T) {
	key := types.NamespacedName{Namespace: "ns", Name: "tgb"}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "svc", ResourceVersion: "1"}}
	svc2 := svc.DeepCopy()
	svc2.ResourceVersion = "2"
	svc2.Spec.Type = corev1.ServiceTypeNodePort
	for _, tc := range []struct {
		name        string
		opts        Options
		pq          bool
		wantInitial bool // the initial-list Create is mapped
	}{
		{name: "workqueue", wantInitial: false},
		{name: "priority queue, normal-priority handlers", opts: Options{PriorityQueue: true}, pq: true, wantInitial: true},
		{name: "priority queue, low-priority initial events", opts: Options{PriorityQueue: true, LowPriorityInitialEvents: true}, pq: true, wantInitial: false},
		{name: "legacy startup", opts: Options{legacyStartup: true}, wantInitial: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Controller{opts: tc.opts}
			calls := 0
			h := mapHandler{c: c, mapFn: func(context.Context, client.Object) []types.NamespacedName {
				calls++
				return []types.NamespacedName{key}
			}}
			var q queue
			if tc.pq {
				q = priorityqueue.New[reconcile.Request]("")
			} else {
				q = workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]())
			}
			defer q.ShutDown()
			ctx := context.Background()
			step := func(what string, want bool, f func()) {
				t.Helper()
				before := calls
				f()
				if got := calls > before; got != want {
					t.Fatalf("%s mapped = %v, want %v", what, got, want)
				}
			}
			step("initial-list create", tc.wantInitial, func() { h.Create(ctx, event.CreateEvent{Object: svc, IsInInitialList: true}, q) })
			step("create", true, func() { h.Create(ctx, event.CreateEvent{Object: svc}, q) })
			step("resync", true, func() { h.Update(ctx, event.UpdateEvent{ObjectOld: svc, ObjectNew: svc}, q) })
			step("update", true, func() { h.Update(ctx, event.UpdateEvent{ObjectOld: svc, ObjectNew: svc2}, q) })
			step("delete", true, func() { h.Delete(ctx, event.DeleteEvent{Object: svc}, q) })
			step("generic", true, func() { h.Generic(ctx, event.GenericEvent{Object: svc}, q) })
		})
	}
}

// TestSkippedFanOutCannotChangeQueue: with a priority queue and low-priority initial events, a
// binding queued by its own initial-list event (controller-runtime's For handler) has the same
// priority and position whether or not its Service's initial-list event is mapped too.
func TestSkippedFanOutCannotChangeQueue(t *testing.T) {
	order := func(mapInitial bool) []string {
		c := &Controller{opts: Options{PriorityQueue: true, LowPriorityInitialEvents: true, legacyStartup: mapInitial}}
		q := priorityqueue.New[reconcile.Request]("")
		defer q.ShutDown()
		ctx := context.Background()
		own := handler.EnqueueRequestForObject{}
		h := mapHandler{c: c, mapFn: func(_ context.Context, o client.Object) []types.NamespacedName {
			return []types.NamespacedName{{Namespace: o.GetNamespace(), Name: o.GetName()}}
		}}
		for _, n := range []string{"a", "b", "c"} {
			own.Create(ctx, event.CreateEvent{Object: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}}, IsInInitialList: true}, q)
		}
		for _, n := range []string{"c", "a"} { // secondary initial-list events in another order
			h.Create(ctx, event.CreateEvent{Object: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}}, IsInInitialList: true}, q)
		}
		h.Create(ctx, event.CreateEvent{Object: &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "b"}}}, q) // a live event
		var out []string
		deadline := time.Now().Add(5 * time.Second)
		for len(out) < 3 && time.Now().Before(deadline) {
			if q.Len() == 0 {
				time.Sleep(time.Millisecond) // the priority queue applies adds asynchronously
				continue
			}
			item, prio, _ := q.GetWithPriority()
			out = append(out, item.Name+":"+map[bool]string{true: "low", false: "normal"}[prio < 0])
			q.Done(item)
		}
		return out
	}
	with, without := order(true), order(false)
	if len(with) != 3 || len(without) != 3 {
		t.Fatalf("queue drained %v / %v", with, without)
	}
	for i := range with {
		if with[i] != without[i] {
			t.Fatalf("order with initial fan-out %v, without %v", with, without)
		}
	}
	if with[0] != "b:normal" {
		t.Fatalf("live event did not go first: %v", with)
	}
}

func TestCacheTransform(t *testing.T) {
	created := metav1.NewTime(time.Unix(100, 0))
	meta0 := metav1.ObjectMeta{Namespace: "ns", Name: "p", CreationTimestamp: created,
		Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"a": "b"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "rs"}},
		ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kubelet"}}}
	pod := &corev1.Pod{ObjectMeta: *meta0.DeepCopy(),
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}, NodeName: "n1",
			ReadinessGates: []corev1.PodReadinessGate{{ConditionType: "target-health.elbv2.k8s.aws/web"}}},
		Status: corev1.PodStatus{PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}}, Phase: corev1.PodRunning,
			Conditions:        []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app"}}}}
	want := pod.DeepCopy()
	want.ManagedFields = nil
	want.Spec.Containers = nil
	want.Status.ContainerStatuses = nil
	out, err := cacheTransform(pod)
	if err != nil {
		t.Fatal(err)
	}
	if got := out.(*corev1.Pod); !equalJSON(t, got, want) {
		t.Fatalf("pod after transform %+v, want %+v", got, want)
	}
	again, _ := cacheTransform(out)
	if !equalJSON(t, again, want) {
		t.Fatal("transform not idempotent")
	}

	node := &corev1.Node{ObjectMeta: *meta0.DeepCopy(), Spec: corev1.NodeSpec{ProviderID: "aws:///us-east-1a/i-1"},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Images: []corev1.ContainerImage{{Names: []string{"app"}}}}}
	wantNode := node.DeepCopy()
	wantNode.ManagedFields, wantNode.Status.Images = nil, nil
	if out, _ := cacheTransform(node); !equalJSON(t, out, wantNode) {
		t.Fatalf("node after transform %+v", out)
	}

	svc := &corev1.Service{ObjectMeta: *meta0.DeepCopy(), Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}}}
	wantSvc := svc.DeepCopy()
	wantSvc.ManagedFields = nil
	if out, _ := cacheTransform(svc); !equalJSON(t, out, wantSvc) {
		t.Fatalf("service after transform %+v", out)
	}

	tomb := toolscache.DeletedFinalStateUnknown{Key: "ns/p", Obj: pod}
	if out, err := cacheTransform(tomb); err != nil || out != any(tomb) {
		t.Fatalf("tombstone changed: %v %v", out, err)
	}
}

func equalJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := jsonOf(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := jsonOf(b)
	if err != nil {
		t.Fatal(err)
	}
	return ja == jb
}

// countingMapper answers every RESTMapping and counts the calls; "Missing" kinds are no match.
type countingMapper struct {
	meta.RESTMapper
	calls int
}

func (m *countingMapper) RESTMapping(gk schema.GroupKind, _ ...string) (*meta.RESTMapping, error) {
	m.calls++
	if gk.Kind == "Missing" {
		return nil, &meta.NoKindMatchError{GroupKind: gk}
	}
	return &meta.RESTMapping{Scope: meta.RESTScopeNamespace}, nil
}

func TestMemoMapper(t *testing.T) {
	inner := &countingMapper{}
	m := &memoMapper{RESTMapper: inner, mappings: map[memoKey]*meta.RESTMapping{}}
	pod := schema.GroupKind{Kind: "Pod"}
	for range 3 {
		if r, err := m.RESTMapping(pod, "v1"); err != nil || r.Scope.Name() != meta.RESTScopeNameNamespace {
			t.Fatalf("mapping %v %v", r, err)
		}
	}
	if inner.calls != 1 {
		t.Fatalf("%d inner calls for one kind, want 1", inner.calls)
	}
	if _, err := m.RESTMapping(pod, "v2"); err != nil || inner.calls != 2 {
		t.Fatalf("another version not asked: %d calls, %v", inner.calls, err)
	}
	missing := schema.GroupKind{Group: "x.io", Kind: "Missing"}
	for range 2 {
		if _, err := m.RESTMapping(missing, "v1"); !meta.IsNoMatchError(err) {
			t.Fatalf("missing kind: %v", err)
		}
	}
	if inner.calls != 4 {
		t.Fatalf("a miss was memoised: %d calls, want 4", inner.calls)
	}
}

func jsonOf(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

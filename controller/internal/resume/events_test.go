package resume

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/restartsim/restartsim/controller/internal/readinessgate"
)

// TestFastPathPodEvents: a gated pod's event maps to the bindings its readiness gates name,
// except the event of the fast path's own gate patch and, after a first event, one that changed
// nothing the bindings depend on; a pod without gates maps to none (its slice does).
func TestFastPathPodEvents(t *testing.T) {
	f := New(Config{})
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p"}}
	for _, g := range []corev1.PodConditionType{readinessgate.ConditionType("a"), readinessgate.ConditionType("b"), "other.example/gate"} {
		pod.Spec.ReadinessGates = append(pod.Spec.ReadinessGates, corev1.PodReadinessGate{ConditionType: g})
	}
	want := []types.NamespacedName{{Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "b"}}
	event := func(typ watch.EventType, rv string, mutate func(*corev1.Pod)) []types.NamespacedName {
		pod = pod.DeepCopy()
		pod.ResourceVersion = rv
		if mutate != nil {
			mutate(pod)
		}
		return f.bindingsOf(context.Background(), typ, pod)
	}
	condition := func(ct corev1.PodConditionType, s corev1.ConditionStatus) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.Conditions = append(slices.DeleteFunc(p.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == ct }),
				corev1.PodCondition{Type: ct, Status: s})
		}
	}
	for _, step := range []struct {
		what   string
		typ    watch.EventType
		rv     string
		mutate func(*corev1.Pod)
		own    bool // the fast path's own patch wrote rv
		taken  bool
	}{
		{what: "first event of the pod", typ: watch.Modified, rv: "1", taken: true},
		{what: "kubelet's Ready condition", typ: watch.Modified, rv: "2", mutate: condition(corev1.PodReady, corev1.ConditionFalse)},
		{what: "containers ready", typ: watch.Modified, rv: "3", mutate: condition(corev1.ContainersReady, corev1.ConditionTrue), taken: true},
		{what: "own gate patch", typ: watch.Modified, rv: "4", mutate: condition(readinessgate.ConditionType("a"), corev1.ConditionTrue), own: true},
		{what: "kubelet's Ready after the gate", typ: watch.Modified, rv: "5", mutate: condition(corev1.PodReady, corev1.ConditionTrue)},
		{what: "someone else's gate write", typ: watch.Modified, rv: "6", mutate: condition(readinessgate.ConditionType("b"), corev1.ConditionFalse), taken: true},
		{what: "deletion", typ: watch.Deleted, rv: "7", taken: true},
	} {
		if step.own {
			f.gateWrites.Store(types.NamespacedName{Namespace: "ns", Name: "p"}, step.rv)
		}
		got := event(step.typ, step.rv, step.mutate)
		if step.taken && !slices.Equal(got, want) || !step.taken && len(got) != 0 {
			t.Errorf("%s: maps to %v, want taken=%v", step.what, got, step.taken)
		}
	}
	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", ResourceVersion: "9"}}
	if got := f.bindingsOf(context.Background(), watch.Modified, plain); len(got) != 0 {
		t.Fatalf("pod without gates maps to %v, want none", got)
	}
}

package controller

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

// TestFastPathPodEvents: a pod event maps to the bindings its readiness gates name, except the
// event of the fast path's own gate patch; a pod without gates maps to none (its slice does).
func TestFastPathPodEvents(t *testing.T) {
	f := &fastPath{c: &Controller{}}
	pod := mkPod("ns", "p", string(readinessgate.ConditionType("a")), string(readinessgate.ConditionType("b")), "other.example/gate")
	pod.ResourceVersion = "7"
	want := []types.NamespacedName{{Namespace: "ns", Name: "a"}, {Namespace: "ns", Name: "b"}}
	if got := f.bindingsOf(context.Background(), watch.Modified, pod); !slices.Equal(got, want) {
		t.Fatalf("gated pod maps to %v, want %v", got, want)
	}
	f.c.fastPathGateWrites.Store(types.NamespacedName{Namespace: "ns", Name: "p"}, "7")
	if got := f.bindingsOf(context.Background(), watch.Modified, pod); len(got) != 0 {
		t.Fatalf("own gate patch maps to %v, want none", got)
	}
	pod.ResourceVersion = "8" // someone else's write after it
	if got := f.bindingsOf(context.Background(), watch.Modified, pod); !slices.Equal(got, want) {
		t.Fatalf("a later write maps to %v, want %v", got, want)
	}
	plain := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "q", ResourceVersion: "9"}}
	if got := f.bindingsOf(context.Background(), watch.Modified, plain); len(got) != 0 {
		t.Fatalf("pod without gates maps to %v, want none", got)
	}
}

package observe

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

func condObject(uid, rv string, conds ...map[string]any) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetUID(k8stypes.UID(uid))
	o.SetResourceVersion(rv)
	list := make([]any, len(conds))
	for i, c := range conds {
		list[i] = c
	}
	_ = unstructured.SetNestedSlice(o.Object, list, "status", "conditions")
	return o
}

func cond(typ, status, msg string) map[string]any {
	return map[string]any{"type": typ, "status": status, "message": msg}
}

func TestConditionsStuck(t *testing.T) {
	terminal := cond("ACK.Terminal", "True", "InvalidChangeBatch: bad value")
	synced := cond("ACK.ResourceSynced", "True", "")
	notSynced := cond("ACK.ResourceSynced", "False", "Resource not synced")
	for _, tc := range []struct {
		name    string
		objs    func(step int) []*unstructured.Unstructured
		wantMsg string
		wantN   int
	}{
		{"one error, unchanged", func(int) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{condObject("a", "1", terminal), condObject("b", "1", terminal), condObject("c", "1", synced)}
		}, "ACK.Terminal: InvalidChangeBatch: bad value", 2},
		{"a not-synced wait is no error", func(int) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{condObject("a", "1", notSynced), condObject("b", "1", notSynced)}
		}, "", 0},
		{"two messages", func(int) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{condObject("a", "1", terminal), condObject("b", "1", cond("ACK.Recoverable", "True", "other"))}
		}, "", 0},
		{"an object still changing", func(step int) []*unstructured.Unstructured {
			return []*unstructured.Unstructured{condObject("a", "1", terminal), condObject("b", string(rune('1'+step)), synced)}
		}, "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &Conditions{Window: 10 * time.Second}
			var msg string
			var n int
			for step := 0; step <= 12; step++ {
				msg, n = d.Observe(t0.Add(time.Duration(step)*time.Second), tc.objs(step))
				if step < 10 && n != 0 {
					t.Fatalf("step %d: stuck (%q ×%d) before the window", step, msg, n)
				}
			}
			if msg != tc.wantMsg || n != tc.wantN {
				t.Fatalf("Observe = %q ×%d, want %q ×%d", msg, n, tc.wantMsg, tc.wantN)
			}
		})
	}
}

// Quiet: a throttled or successful call is activity; refusals are not.
func TestRefusalsQuiet(t *testing.T) {
	d := &Refusals{Window: 10 * time.Second, Start: t0}
	d.Add(calls("rrrrrrrrrrrr"))
	if !d.Quiet(t0.Add(11 * time.Second)) {
		t.Fatal("refusals only: not quiet")
	}
	d.Add(calls("t"))
	if d.Quiet(t0.Add(5 * time.Second)) {
		t.Fatal("quiet 5 s after a throttled call")
	}
}

package controller

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

func req(name string) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Namespace: "ns", Name: name}}
}

// TestProgressBarrier: a barrier passes once every request added before it has been reconciled,
// including one re-added while in flight; delayed and rate-limited adds are not waited for.
func TestProgressBarrier(t *testing.T) {
	for _, pq := range []bool{false, true} {
		p := newProgress()
		rl := workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](time.Hour, time.Hour)
		q := newProgressQueue(p, pq)("test", rl).(priorityqueue.PriorityQueue[reconcile.Request])
		q.Add(req("a"))
		q.AddWithOpts(priorityqueue.AddOpts{}, req("b"))
		q.AddWithOpts(priorityqueue.AddOpts{After: time.Hour}, req("later"))
		q.AddWithOpts(priorityqueue.AddOpts{RateLimited: true}, req("retry"))
		b := p.Mark()
		if p.Passed(b) {
			t.Fatalf("pq=%v: passed with a and b queued", pq)
		}
		first, _, _ := q.GetWithPriority()
		q.Add(first) // an event while it is in flight: needs another reconcile
		after := p.Mark()
		q.Done(first)
		second, _, _ := q.GetWithPriority()
		q.Done(second)
		if !p.Passed(b) {
			t.Fatalf("pq=%v: not passed after a and b were reconciled", pq)
		}
		if p.Passed(after) {
			t.Fatalf("pq=%v: passed although %v was re-added in flight", pq, first)
		}
		again, _, _ := q.GetWithPriority()
		if again != first {
			t.Fatalf("pq=%v: got %v, want the re-added %v", pq, again, first)
		}
		q.Done(again)
		if !p.Passed(after) {
			t.Fatalf("pq=%v: not passed after the re-added request was reconciled", pq)
		}
		q.ShutDown()
	}
}

package queue

import (
	"container/heap"
	"fmt"
)

// Call is one AWS call an object costs: the bucket it draws from and the worker's time around it
// (the request itself and the controller's own work before the next call).
type Call struct {
	Bucket  string
	Seconds float64
}

// Kind is one kind of object a controller re-reads with its own workers.
type Kind struct {
	Name    string
	Objects int
	Workers int
	// Start is when the kind's first worker begins, in seconds from the simulation's zero.
	Start float64
	// Calls is the sequence every object makes; Extra are calls only a share of the objects make
	// (a kind that averages 3.2 describes an object makes 3, and one in five objects a fourth).
	Calls []Call
	Extra []Extra
}

// Extra is a call made by a fraction of the objects: Share of them, spread evenly over the queue.
type Extra struct {
	Call
	Share float64
}

// Result is when each object of each kind was done, by queue position, and when the last was.
type Result struct {
	// Done[k][p] is when the object at position p of kind k made its last call.
	Done  [][]float64
	End   float64
	Calls map[string]int
}

// Simulate runs the kinds side by side, sharing buckets. A bucket a call names that buckets does not
// hold never throttles.
func Simulate(kinds []Kind, buckets map[string]Bucket) (Result, error) {
	state := map[string]*tokens{}
	for name, b := range buckets {
		state[name] = newTokens(b)
	}
	res := Result{Done: make([][]float64, len(kinds)), Calls: map[string]int{}}
	var q events
	next := make([]int, len(kinds))
	for k, kind := range kinds {
		if kind.Workers < 1 || kind.Objects < 0 {
			return Result{}, fmt.Errorf("kind %s: %d workers, %d objects", kind.Name, kind.Workers, kind.Objects)
		}
		res.Done[k] = make([]float64, kind.Objects)
		for w := 0; w < kind.Workers && next[k] < kind.Objects; w++ {
			q = append(q, event{at: kind.Start, kind: k, pos: next[k], calls: kind.callsOf(next[k])})
			next[k]++
		}
	}
	heap.Init(&q)
	for q.Len() > 0 {
		ev := heap.Pop(&q).(event)
		if ev.step == len(ev.calls) {
			res.Done[ev.kind][ev.pos] = ev.at
			res.End = max(res.End, ev.at)
			if p := next[ev.kind]; p < kinds[ev.kind].Objects {
				next[ev.kind]++
				heap.Push(&q, event{at: ev.at, kind: ev.kind, pos: p, calls: kinds[ev.kind].callsOf(p)})
			}
			continue
		}
		c := ev.calls[ev.step]
		at := ev.at
		if t, ok := state[c.Bucket]; ok {
			at = t.grant(at)
		}
		res.Calls[c.Bucket]++
		ev.at, ev.step = at+c.Seconds, ev.step+1
		heap.Push(&q, ev)
	}
	return res, nil
}

// callsOf is the call sequence of the object at position p: the kind's calls, then each extra call
// whose share reaches a new whole number at p (so a share of 0.25 falls on every fourth object).
func (k Kind) callsOf(p int) []Call {
	out := k.Calls
	for _, e := range k.Extra {
		if int(float64(p+1)*e.Share) > int(float64(p)*e.Share) {
			out = append(out[:len(out):len(out)], e.Call)
		}
	}
	return out
}

// event is a worker's next step: the object at pos of kind, about to make calls[step] at `at`.
type event struct {
	at    float64
	kind  int
	pos   int
	step  int
	calls []Call
}

// events is a min-heap by time; ties go to the kind and position first queued, so a run is
// deterministic.
type events []event

func (e events) Len() int { return len(e) }
func (e events) Less(i, j int) bool {
	if e[i].at != e[j].at {
		return e[i].at < e[j].at
	}
	if e[i].kind != e[j].kind {
		return e[i].kind < e[j].kind
	}
	return e[i].pos < e[j].pos
}
func (e events) Swap(i, j int) { e[i], e[j] = e[j], e[i] }
func (e *events) Push(x any)   { *e = append(*e, x.(event)) }
func (e *events) Pop() any {
	old := *e
	x := old[len(old)-1]
	*e = old[:len(old)-1]
	return x
}

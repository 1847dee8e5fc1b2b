package fakeaws

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Outcomes of a recorded call.
const (
	OutcomeOK        = "ok"
	OutcomeThrottled = "throttled"
	OutcomeError     = "error"
)

// ServiceAdmin marks recorder entries for out-of-band admin changes (drift), which are not API calls.
const ServiceAdmin = "admin"

// Call is one recorded request. Times and durations are scenario time. For RegisterTargets, DeregisterTargets
// and DescribeTargetHealth, Targets are exactly the targets the request carried (Port 0 when the request left it
// out), whatever the outcome. A call's state change (if any) takes effect at Time + Latency.
type Call struct {
	Seq             uint64    `json:"seq"`
	Time            time.Time `json:"time"`
	Service         string    `json:"service"` // "elbv2" | "ec2" | "s3" | "admin" ("" when unroutable)
	Operation       string    `json:"operation"`
	TargetGroupARN  string    `json:"targetGroupArn,omitempty"`
	SecurityGroupID string    `json:"securityGroupId,omitempty"`
	Targets         []Target  `json:"targets,omitempty"`
	// Filters are an EC2 call's filter names in request order; ResourceIDs is how many resources it names
	// by ID list (InstanceId.N, NetworkInterfaceId.N, GroupId.N, ...).
	Filters     []string      `json:"filters,omitempty"`
	ResourceIDs int           `json:"resourceIds,omitempty"`
	Outcome     string        `json:"outcome"`
	ErrorCode   string        `json:"errorCode,omitempty"`
	HTTPStatus  int           `json:"httpStatus"`
	Bucket      string        `json:"bucket,omitempty"`
	Latency     time.Duration `json:"latency"`
	RequestID   string        `json:"requestId"`
}

// Recorder keeps every call in memory and fans them out to subscribers in record order.
type Recorder struct {
	mu    sync.Mutex
	calls []Call
	subs  map[int]func(Call)
	next  int
}

func newRecorder() *Recorder { return &Recorder{subs: map[int]func(Call){}} }

func (r *Recorder) record(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.Seq = uint64(len(r.calls)) + 1
	c.Targets = append([]Target(nil), c.Targets...)
	r.calls = append(r.calls, c)
	for _, fn := range r.subs {
		fn(c)
	}
}

// Calls returns a copy of every call recorded so far.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Call, len(r.calls))
	copy(out, r.calls)
	for i := range out {
		out[i].Targets = append([]Target(nil), out[i].Targets...)
	}
	return out
}

// Len is the number of calls recorded so far.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// Since returns a copy of the calls after the first n.
func (r *Recorder) Since(n int) []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	if n < 0 {
		n = 0
	}
	if n > len(r.calls) {
		n = len(r.calls)
	}
	return append([]Call(nil), r.calls[n:]...)
}

// Reset drops the recorded calls (subscribers stay).
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = nil
}

// Subscribe calls fn synchronously, in record order, for every call recorded from now on. fn must be quick and
// must not call back into the Recorder. The returned cancel stops delivery.
func (r *Recorder) Subscribe(fn func(Call)) (cancel func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := r.next
	r.next++
	r.subs[id] = fn
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		delete(r.subs, id)
	}
}

// StreamTo writes every call recorded from now on to w as one JSON object per line. The first write error
// stops the stream; cancel stops it too.
func (r *Recorder) StreamTo(w io.Writer) (cancel func()) {
	enc := json.NewEncoder(w)
	var once sync.Once
	var stop func()
	failed := false
	stop = r.Subscribe(func(c Call) {
		if failed {
			return
		}
		if err := enc.Encode(c); err != nil {
			failed = true
		}
	})
	return func() { once.Do(stop) }
}

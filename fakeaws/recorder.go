package fakeaws

import (
	"encoding/json"
	"io"
	"slices"
	"strings"
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
	Seq            uint64    `json:"seq"`
	Time           time.Time `json:"time"`
	Service        string    `json:"service"` // "elbv2" | "ec2" | "sts" | "s3" | "route53" | "acm" | "admin" ("" when unroutable)
	Operation      string    `json:"operation"`
	TargetGroupARN string    `json:"targetGroupArn,omitempty"`
	// LoadBalancerARN and ListenerARN are the request's LoadBalancerArn and ListenerArn parameters, if any.
	LoadBalancerARN string `json:"loadBalancerArn,omitempty"`
	ListenerARN     string `json:"listenerArn,omitempty"`
	// RuleARN is the request's RuleArn parameter (ModifyRule, DeleteRule), if any. A successful
	// CreateTargetGroup, CreateLoadBalancer, CreateListener or CreateRule names what it made in the
	// field of its kind (a CreateListener keeps its LoadBalancerArn, a CreateRule its ListenerArn).
	RuleARN string `json:"ruleArn,omitempty"`
	// SecurityGroupID is the request's GroupId, if any, or else the group a successful CreateSecurityGroup
	// made or DeleteSecurityGroup (by name) deleted.
	SecurityGroupID string `json:"securityGroupId,omitempty"`
	// HostedZoneID is the Route53 hosted zone the call's path names, if any, or the one a successful
	// CreateHostedZone made.
	HostedZoneID string   `json:"hostedZoneId,omitempty"`
	Targets      []Target `json:"targets,omitempty"`
	// Filters are an EC2 call's filter names in request order; ResourceIDs is how many resources it names
	// by ID list (InstanceId.N, NetworkInterfaceId.N, GroupId.N, ...).
	Filters     []string `json:"filters,omitempty"`
	ResourceIDs int      `json:"resourceIds,omitempty"`
	Outcome     string   `json:"outcome"`
	ErrorCode   string   `json:"errorCode,omitempty"`
	// ErrorMessage is the error's message (Route53 and the Query services; at most MaxErrorMessage bytes).
	ErrorMessage string `json:"errorMessage,omitempty"`
	HTTPStatus   int    `json:"httpStatus"`
	// Bucket is the throttle bucket that admitted or refused the call.
	Bucket string `json:"bucket,omitempty"`
	// S3Bucket is the bucket an S3 request's path names, if any.
	S3Bucket string `json:"s3Bucket,omitempty"`
	// RecordSets are the record sets a successful ChangeResourceRecordSets changed, in batch order (at most
	// MaxRecordedSets of them; RecordSetsOmitted counts the rest).
	RecordSets        []RecordSetChange `json:"recordSets,omitempty"`
	RecordSetsOmitted int               `json:"recordSetsOmitted,omitempty"`
	Latency           time.Duration     `json:"latency"`
	RequestID         string            `json:"requestId"`
}

// Mutates reports whether the call's operation changes AWS state rather than reading it: every
// operation but the Describe, List, Get and Head ones, in each service fakeaws speaks.
func (c *Call) Mutates() bool {
	for _, read := range []string{"Describe", "List", "Get", "Head"} {
		if strings.HasPrefix(c.Operation, read) {
			return false
		}
	}
	return true
}

// MaxErrorMessage bounds a recorded call's error message: enough to say why, without letting the
// messages of many refused calls (which may name their resources) grow the log.
const MaxErrorMessage = 256

// Recorder keeps the most recent calls in memory (a ring of Options.MaxRecordedCalls, counting the calls it
// drops) and fans every call out to subscribers in record order. Seq numbers every call from 1 whether or not
// it is still held, so Since(n) means "the calls after the n-th".
type Recorder struct {
	mu       sync.Mutex
	ring     []Call // in Seq order from head (wrapping) once full
	head     int    // index of the oldest held call
	total    uint64 // calls recorded since the last Reset (the last Seq)
	dropped  uint64 // calls pushed out of the ring, ever
	capacity int    // < 0: unbounded
	names    interner
	subs     map[int]func(Call)
	next     int
}

func newRecorder(capacity int) *Recorder {
	return &Recorder{subs: map[int]func(Call){}, capacity: capacity, names: interner{}}
}

func (r *Recorder) record(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.total++
	c.Seq = r.total
	r.compact(&c)
	for _, fn := range r.subs {
		fn(c)
	}
	switch {
	case r.capacity < 0 || len(r.ring) < r.capacity:
		r.ring = append(r.ring, c)
	default:
		r.ring[r.head] = c
		r.head = (r.head + 1) % len(r.ring)
		r.dropped++
	}
}

// compact makes c own its memory: request fields are slices of the request body, which a held call would
// otherwise keep alive whole; names from small sets are shared.
func (r *Recorder) compact(c *Call) {
	c.Service, c.Operation, c.Outcome = r.names.get(c.Service), r.names.get(c.Operation), r.names.get(c.Outcome)
	c.ErrorCode, c.Bucket = r.names.get(c.ErrorCode), r.names.get(c.Bucket)
	c.ErrorMessage = strings.Clone(strings.ToValidUTF8(c.ErrorMessage[:min(len(c.ErrorMessage), MaxErrorMessage)], ""))
	c.TargetGroupARN, c.SecurityGroupID = strings.Clone(c.TargetGroupARN), strings.Clone(c.SecurityGroupID)
	c.LoadBalancerARN, c.ListenerARN = strings.Clone(c.LoadBalancerARN), strings.Clone(c.ListenerARN)
	c.RuleARN, c.HostedZoneID, c.S3Bucket = strings.Clone(c.RuleARN), strings.Clone(c.HostedZoneID), strings.Clone(c.S3Bucket)
	c.RecordSets = slices.Clone(c.RecordSets)
	for i := range c.RecordSets {
		rs := &c.RecordSets[i]
		rs.Action, rs.Type = r.names.get(rs.Action), r.names.get(rs.Type)
		rs.Name, rs.SetIdentifier = strings.Clone(rs.Name), strings.Clone(rs.SetIdentifier)
	}
	c.Targets = slices.Clone(c.Targets)
	for i := range c.Targets {
		c.Targets[i].ID, c.Targets[i].AvailabilityZone = strings.Clone(c.Targets[i].ID), r.names.get(c.Targets[i].AvailabilityZone)
	}
	if c.Filters != nil {
		f := make([]string, len(c.Filters))
		for i, name := range c.Filters {
			f[i] = r.names.get(name)
		}
		c.Filters = f
	}
}

// interner shares the strings of small vocabularies (operations, codes, filter names); past maxInterned
// distinct names it copies instead, so hostile names cannot grow it.
type interner map[string]string

const maxInterned = 4096

func (in interner) get(s string) string {
	if v, ok := in[s]; ok {
		return v
	}
	s = strings.Clone(s)
	if len(in) < maxInterned {
		in[s] = s
	}
	return s
}

// held returns the i-th held call, oldest first (caller holds mu).
func (r *Recorder) held(i int) Call { return r.ring[(r.head+i)%len(r.ring)] }

// Calls returns a copy of every call still held.
func (r *Recorder) Calls() []Call { return r.Since(0) }

// Len is the number of calls recorded since the last Reset (held or dropped): the Seq of the last one.
func (r *Recorder) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int(r.total)
}

// Dropped is the number of calls pushed out of the ring since the server started.
func (r *Recorder) Dropped() uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Since returns a copy of the held calls after the n-th (Seq > n); calls already dropped are missing from it.
func (r *Recorder) Since(n int) []Call {
	var out []Call
	r.each(n, func(batch []Call) bool { out = append(out, batch...); return true })
	return out
}

// each hands the held calls after the n-th to fn in batches, taking the lock once per batch so that a slow
// fn (an HTTP client) never holds up recording; fn returns false to stop.
func (r *Recorder) each(n int, fn func([]Call) bool) {
	const batchSize = 512
	next := uint64(max(n, 0)) + 1
	for {
		r.mu.Lock()
		oldest := r.total - uint64(len(r.ring)) + 1
		next = max(next, oldest)
		var batch []Call
		for ; next <= r.total && len(batch) < batchSize; next++ {
			c := r.held(int(next - oldest))
			c.Targets, c.RecordSets = slices.Clone(c.Targets), slices.Clone(c.RecordSets)
			batch = append(batch, c)
		}
		r.mu.Unlock()
		if len(batch) == 0 || !fn(batch) {
			return
		}
	}
}

// Reset drops the recorded calls and numbers the next one 1 again (subscribers stay).
func (r *Recorder) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ring, r.head, r.total = nil, 0, 0
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

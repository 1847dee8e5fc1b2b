package predict

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/predict/queue"
	"github.com/restartsim/restartsim/results"
)

// Unexplained is a run the model does not fit: a prediction from it would be a guess.
type Unexplained struct{ Reason string }

func (e *Unexplained) Error() string { return "the model cannot explain this run: " + e.Reason }

func unexplained(format string, args ...any) error {
	return &Unexplained{Reason: fmt.Sprintf(format, args...)}
}

// reRead is the restart's AWS calls, from the replacement's start until the steady state, in
// scenario seconds.
type reRead struct {
	calls []timedCall
	first float64
	last  float64
}

type timedCall struct {
	*fakeaws.Call
	at   float64
	item string // the resource the call is charged to
	kind string
	// calm tells the call's bucket had a token to spare when it came: the call did not wait for one,
	// so the time since its worker's previous call is the worker's own pace.
	calm bool
}

// Fit reads the run's restart into a Model.
func Fit(run *Run) (*Model, error) {
	st := run.Strategy
	r := st.Restart
	switch {
	case r == nil:
		return nil, unexplained("strategy %s has no restart", st.Name)
	case st.CallLogOrigin == nil:
		return nil, fmt.Errorf("strategy %s: results.json does not locate the call log in time (no callLogOrigin): rerun the scenario with this restartsim", st.Name)
	case st.Summary.SteadyStateSeconds == nil:
		return nil, unexplained("the run never reached a steady state after its restart, so its re-read has no end to fit")
	case len(st.Restarts) > 1:
		return nil, unexplained("the run restarted %d times; the model knows one restart's queue", len(st.Restarts))
	}
	steadyAt := r.OriginSeconds + *st.Summary.SteadyStateSeconds
	for _, ev := range st.Events {
		if ev.Kind == "awsFault" && ev.AtSeconds < steadyAt && max(ev.EndSeconds, ev.AtSeconds) >= r.StartedSeconds {
			return nil, unexplained("an AWS fault (%s) at %.1f s falls in the restart's re-read; the model knows only the throttle buckets", ev.Detail, ev.AtSeconds)
		}
	}
	rr := window(run.Calls, *st.CallLogOrigin, r.StartedSeconds, steadyAt)
	if len(rr.calls) == 0 {
		return nil, unexplained("no AWS call between the replacement's start (%.1f s) and the steady state (%.1f s)", r.StartedSeconds, steadyAt)
	}
	m := &Model{Strategy: st.Name, Profile: profileOf(run.Results), Start: rr.first - r.OriginSeconds,
		Drain: rr.last - rr.first, Settle: steadyAt - rr.last}
	m.Fleet, m.FleetName = fleetSize(run.Results, st)
	if r.CachesSyncedSeconds != nil {
		from := r.StartedSeconds
		if r.LeadingSeconds != nil {
			from = max(from, *r.LeadingSeconds)
		}
		m.CacheSync = max(0, min(*r.CachesSyncedSeconds, rr.first)-from)
	}
	limits, ok := fakeaws.ProfileLimits(m.Profile)
	if !ok {
		return nil, fmt.Errorf("unknown throttle profile %q", m.Profile)
	}
	m.Buckets = map[string]queue.Bucket{}
	for i := range rr.calls {
		c := rr.calls[i]
		if c.Outcome == fakeaws.OutcomeThrottled {
			m.Throttled++
			continue
		}
		m.Calls++
		l, err := bucketLimit(limits, c.Bucket)
		if err != nil {
			return nil, err
		}
		if l.Rate >= 0 {
			m.Buckets[c.Bucket] = queue.Bucket{Rate: l.Rate, Burst: float64(l.Burst)}
		}
	}
	markCalm(rr, m.Buckets)
	m.Kinds = fitKinds(rr, m.Fleet, knownBefore(run.Calls, *st.CallLogOrigin, r.StartedSeconds))
	if len(m.Kinds) == 0 {
		return nil, unexplained("no call of the re-read names a resource, so there is no queue to fit")
	}
	m.Changes = restartChanges(st, rr, m.Kinds)
	if err := m.calibratePace(); err != nil {
		return nil, err
	}
	return m, nil
}

// window picks the re-read's calls and charges each to a resource: the one it names, or for a call
// that names none (a filtered EC2 describe), the resource of the call before it, the reconcile it
// most likely belongs to. Calls before the first that names a resource belong to no reconcile (ACK's
// STS GetCallerIdentity at start-up, seconds before its caches sync): they are start-up, not
// re-read, and stay out of it.
func window(calls []fakeaws.Call, origin time.Time, from, to float64) reRead {
	var rr reRead
	for i := range calls {
		c := &calls[i]
		at := c.Time.Sub(origin).Seconds()
		if c.Service == "" || c.Service == fakeaws.ServiceAdmin || at < from || at > to {
			continue
		}
		rr.calls = append(rr.calls, timedCall{Call: c, at: at})
	}
	sort.SliceStable(rr.calls, func(i, j int) bool { return rr.calls[i].at < rr.calls[j].at })
	var lastItem, lastKind string
	lead := 0
	for i := range rr.calls {
		c := &rr.calls[i]
		c.item, c.kind = subject(c.Call)
		if c.item == "" {
			if lastItem == "" {
				lead++
				continue
			}
			c.item, c.kind = lastItem, lastKind
		}
		lastItem, lastKind = c.item, c.kind
	}
	if lead < len(rr.calls) {
		rr.calls = rr.calls[lead:]
	}
	if len(rr.calls) > 0 {
		rr.first, rr.last = rr.calls[0].at, rr.calls[len(rr.calls)-1].at
	}
	return rr
}

// knownBefore are the resources, by kind, that calls before the replacement's start named, less those
// whose last such call deleted them. A run declares its steady state once its changes are applied,
// which can come before the re-read reached its last objects (LBC at 200 bindings: 184 reconciled,
// 16 still queued); without them the queue would be short by its tail at every size.
func knownBefore(calls []fakeaws.Call, origin time.Time, until float64) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for i := range calls {
		c := &calls[i]
		if c.Time.Sub(origin).Seconds() >= until || c.Outcome != fakeaws.OutcomeOK {
			continue
		}
		item, kind := subject(c)
		if item == "" {
			continue
		}
		if out[kind] == nil {
			out[kind] = map[string]bool{}
		}
		if strings.HasPrefix(c.Operation, "Delete") {
			delete(out[kind], item)
		} else {
			out[kind][item] = true
		}
	}
	return out
}

// bucketLimit is the limit of a bucket the call log names: a category of the profile, or for EC2, whose
// operations each have a bucket of their category's size, category/operation. An operation's own
// bucket ("op/Name") was set by the scenario or a fault, which the results do not record.
func bucketLimit(limits map[string]fakeaws.Limit, key string) (fakeaws.Limit, error) {
	if key == "" {
		return fakeaws.Limit{Rate: -1}, nil
	}
	if l, ok := limits[key]; ok {
		return l, nil
	}
	if strings.HasPrefix(key, "op/") {
		return fakeaws.Limit{}, unexplained("the run throttled with its own bucket %s, whose limit the results do not record", key)
	}
	if i := strings.LastIndex(key, "/"); i > 0 {
		if l, ok := limits[key[:i]]; ok {
			return l, nil
		}
	}
	return fakeaws.Limit{Rate: -1}, nil
}

// markCalm replays the re-read's successful calls through their buckets, full at the first call (the
// downtime refills them), and marks the calls that found more than one token.
func markCalm(rr reRead, buckets map[string]queue.Bucket) {
	type level struct{ tokens, at float64 }
	state := map[string]*level{}
	for i := range rr.calls {
		c := &rr.calls[i]
		if c.Outcome == fakeaws.OutcomeThrottled {
			continue
		}
		b, limited := buckets[c.Bucket]
		if !limited || b.Unlimited() {
			c.calm = true
			continue
		}
		l := state[c.Bucket]
		if l == nil {
			l = &level{tokens: b.Burst, at: c.at}
			state[c.Bucket] = l
		}
		l.tokens = min(b.Burst, l.tokens+b.Rate*(c.at-l.at))
		l.at = c.at
		c.calm = l.tokens >= 2
		l.tokens = max(0, l.tokens-1)
	}
}

func profileOf(res *results.Results) string {
	if res.Environment.AWSProfile == "" {
		return fakeaws.ProfileAWSDocumented
	}
	return res.Environment.AWSProfile
}

// fleetSize is the run's fleet in the scenario's terms: its TargetGroupBindings, or else its largest
// object group.
func fleetSize(res *results.Results, st *results.Strategy) (int, string) {
	if n := st.Summary.Objects.TGBs; n > 0 {
		return n, "targetGroupBindings"
	}
	best, name := 0, ""
	groups := make([]string, 0, len(st.Summary.Objects.Groups))
	for g := range st.Summary.Objects.Groups {
		groups = append(groups, g)
	}
	slices.Sort(groups)
	for _, g := range groups {
		if n := st.Summary.Objects.Groups[g]; n > best {
			best, name = n, g
		}
	}
	if best == 0 {
		return res.Scenario.TGBs, "targetGroupBindings"
	}
	return best, name
}

// restartChanges places each of the restart's changes in its kind's queue: the resource named by the
// mutation that applied it, the mutating call nearest its applied time.
func restartChanges(st *results.Strategy, rr reRead, kinds []Kind) []QueuedChange {
	r := st.Restart
	var out []QueuedChange
	var groups []string
	unapplied := map[string]bool{}
	for _, u := range st.Unapplied {
		unapplied[u.ID] = true
	}
	for _, ch := range st.Changes {
		if !results.CountsForBlindTime(r.StoppedSeconds, r.BlindWindowEndSeconds, ch.AtSeconds, ch.AppliedSeconds) {
			continue
		}
		if ch.AppliedSeconds == nil && ch.LatencySeconds == nil && !unapplied[ch.ID] && st.Invariants.Passed {
			continue // superseded by a later change of its object: no call was to apply it, and no blind time counts it
		}
		c := QueuedChange{ID: ch.ID, Position: -1, Lead: max(0, ch.AtSeconds-r.OriginSeconds)}
		if ch.AppliedSeconds != nil {
			blind := *ch.AppliedSeconds - max(ch.AtSeconds, r.OriginSeconds)
			c.Blind = &blind
			if call := nearestMutation(rr, *ch.AppliedSeconds); call != nil {
				c.Kind = call.kind
				for _, k := range kinds {
					if k.Name == call.kind {
						c.Position = k.positions[call.item]
					}
				}
			}
		}
		out = append(out, c)
		groups = append(groups, changeGroup(ch))
	}
	kindOfUnplaced(out, groups)
	return out
}

// changeGroup is what a change changed: its object group, or the bindings.
func changeGroup(ch results.Change) string {
	if ch.Object != "" {
		group, _, _ := strings.Cut(ch.Object, "/")
		return group
	}
	if ch.Ingress != "" {
		return "ingresses"
	}
	return "targetGroupBindings"
}

// kindOfUnplaced gives a change the call log did not place the kind its group's placed changes
// have (a listener's patch waits in the listeners' queue), so the forecast draws it from there.
func kindOfUnplaced(changes []QueuedChange, groups []string) {
	kindOf := map[string]map[string]int{}
	for i, c := range changes {
		if c.Kind != "" {
			if kindOf[groups[i]] == nil {
				kindOf[groups[i]] = map[string]int{}
			}
			kindOf[groups[i]][c.Kind]++
		}
	}
	for i := range changes {
		if changes[i].Kind != "" {
			continue
		}
		best := 0
		for kind, n := range kindOf[groups[i]] {
			if n > best || n == best && kind < changes[i].Kind {
				changes[i].Kind, best = kind, n
			}
		}
	}
}

// nearestMutation is the successful mutating call that applied a change seen at `at`: the closest
// within 2 ms when the change is timed by its call (an applied time is a call's time plus its
// latency, rounded to the millisecond), else the last one in the poll before it (a change to an
// object group is applied when a poll of AWS first shows it).
func nearestMutation(rr reRead, at float64) *timedCall {
	var best *timedCall
	bestD := math.Inf(1)
	for i := range rr.calls {
		c := &rr.calls[i]
		if c.Outcome != fakeaws.OutcomeOK || !c.Call.Mutates() {
			continue
		}
		d := at - (c.at + c.Latency.Seconds())
		if d < -0.002 || d > observePoll {
			continue
		}
		if d = math.Abs(d); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// observePoll bounds how long after its mutation a poll of AWS may first show a change.
const observePoll = 5.0

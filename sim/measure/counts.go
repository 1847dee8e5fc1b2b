package measure

import (
	"fmt"
	"math"
	"sort"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
)

type awsCalls struct{}

func (awsCalls) Name() string { return "aws-calls" }

// Measure counts AWS calls per operation and throttled calls, in total and between the first
// restart and the first meaningful mutation.
func (awsCalls) Measure(in *Input, out *Output) {
	r, hasRestart := in.FirstRestart()
	for i := range in.Calls {
		c := &in.Calls[i]
		if c.Service == fakeaws.ServiceAdmin || c.Service == "" {
			continue
		}
		throttled := c.Outcome == fakeaws.OutcomeThrottled
		out.Summary.AWSCalls[c.Operation]++
		if throttled {
			out.Summary.Throttled++
		}
		t := in.Sec(c)
		if hasRestart && t >= r.Started && (out.firstMeaningful == nil || t < *out.firstMeaningful) {
			out.Summary.AWSCallsBeforeFirstMeaningful[c.Operation]++
			if throttled {
				out.Summary.ThrottledBeforeFirstMeaningful++
			}
		}
	}
}

type k8sWrites struct{}

func (k8sWrites) Name() string { return "k8s-writes" }

// Measure classifies the controller's successful writes to the objects it owns or annotates, from
// the audit log (its reads, and writes of its own bookkeeping such as Leases, are not counted).
func (k8sWrites) Measure(in *Input, out *Output) {
	w := &out.Summary.K8sWrites
	for _, e := range in.Audit {
		if e.At < 0 || e.At > in.End || !e.Succeeded() || !e.Write() || !countedWrite[e.Resource] {
			continue
		}
		switch {
		case e.Resource == "targetgroupbindings" && e.Subresource == "" && (e.Verb == "patch" || e.Verb == "update"):
			w.CheckpointPatches++
		case e.Resource == "targetgroupbindings" && e.Subresource == "status":
			w.StatusUpdates++
		case e.Resource == "pods" && e.Subresource == "status":
			w.PodStatusPatches++
		default:
			w.Other++
		}
	}
}

type apiLoad struct{}

func (apiLoad) Name() string { return "api-load" }

// Measure counts the controller identity's reads and Lease writes in the measured phase: what its
// informers, warm standbys' included, and its leader election cost the API server.
func (apiLoad) Measure(in *Input, out *Output) {
	if !in.HasAudit {
		return
	}
	l := &results.APILoad{}
	for _, e := range in.Audit {
		if e.At < 0 || e.At > in.End {
			continue
		}
		switch {
		case e.Resource == "leases" && e.Write() && e.Succeeded():
			l.LeaseWrites++
		case e.Verb == "list":
			l.Lists++
		case e.Verb == "watch":
			l.Watches++
		case e.Verb == "get":
			l.Gets++
		}
	}
	out.Summary.APILoad = l
}

// countedWrite lists the resources whose writes k8s_writes_total counts.
var countedWrite = map[string]bool{"targetgroupbindings": true, "pods": true, "events": true}

type blindCosts struct{}

func (blindCosts) Name() string { return "blind-costs" }

// Measure adds what the first restart's replacement spent before its first meaningful mutation:
// Kubernetes API requests (all verbs, from the audit log) and process CPU time.
func (blindCosts) Measure(in *Input, out *Output) {
	r, ok := in.FirstRestart()
	if !ok || out.firstMeaningful == nil {
		return
	}
	end := *out.firstMeaningful
	if in.HasAudit {
		n := 0
		for _, e := range in.Audit {
			if e.At >= r.Started && e.At < end {
				n++
			}
		}
		out.Summary.APIRequestsBeforeFirstMeaningful = &n
	}
	// From the stop: a standby's CPU while it stood by is no part of the restart's cost.
	if cpu, ok := cpuAt(in.ReplacementCPU, end); ok {
		if before, ok := cpuAt(in.ReplacementCPU, r.Stopped); ok {
			cpu = math.Round((cpu-before)*1000) / 1000
		}
		out.Summary.ControllerCPUSecondsBeforeFirstMeaningful = &cpu
	}
	// Cache sync counts from when the instance could lead: its start, or the Lease it waited for
	// (a standby's own start predates the restart).
	if synced := in.cachesSynced(0); synced != nil {
		from := r.Started
		if r.LeaderElection && r.Leading != nil {
			from = *r.Leading
		}
		out.Summary.CacheSyncSeconds = ptr(max(0, *synced-from))
	}
}

// cpuAt interpolates the cumulative CPU samples at scenario second t; false when t is outside them.
func cpuAt(samples []CPUSample, t float64) (float64, bool) {
	for i, s := range samples {
		if s.At < t {
			continue
		}
		if i == 0 {
			return math.Round(s.Seconds*1000) / 1000, s.At == t
		}
		p := samples[i-1]
		v := p.Seconds + (s.Seconds-p.Seconds)*(t-p.At)/(s.At-p.At)
		return math.Round(v*1000) / 1000, true
	}
	return 0, false
}

type gateFlips struct{}

func (gateFlips) Name() string { return "readiness-gate-flip" }

func (gateFlips) Measure(in *Input, out *Output) {
	var lats []float64
	for _, f := range in.GateFlips {
		if f.True != nil && *f.True >= f.Pending {
			lats = append(lats, *f.True-f.Pending)
		}
	}
	out.Summary.ReadinessGateFlip = Quantiles(lats)
}

type steadyState struct{}

func (steadyState) Name() string { return "steady-state" }

func (steadyState) Measure(in *Input, out *Output) {
	r, ok := in.FirstRestart()
	if !ok {
		r.Stopped = 0
	}
	if in.SteadyAt != nil { // like TTFMR, from the restart's origin
		out.Summary.SteadyStateSeconds = ptr(max(0, *in.SteadyAt-r.Origin()))
	}
}

type series struct{}

func (series) Name() string { return "timeseries" }

// Measure buckets calls per operation and throttles per second, and keeps the last sample of every
// metric series per second.
func (series) Measure(in *Input, out *Output) {
	type key struct {
		sec    int
		series string
	}
	vals := map[key]float64{}
	for i := range in.Calls {
		c := &in.Calls[i]
		if c.Service == fakeaws.ServiceAdmin || c.Service == "" {
			continue
		}
		sec := int(in.Sec(c))
		if sec < 0 {
			continue
		}
		vals[key{sec, fmt.Sprintf("%s:%s", results.SeriesAWSCalls, c.Operation)}]++
		if c.Outcome == fakeaws.OutcomeThrottled {
			vals[key{sec, fmt.Sprintf("%s:%s", results.SeriesAWSThrottled, c.Operation)}]++
		}
	}
	for _, s := range in.Samples {
		if s.At >= 0 {
			vals[key{int(s.At), s.Series}] = s.Value
		}
	}
	keys := make([]key, 0, len(vals))
	for k := range vals {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].sec != keys[j].sec {
			return keys[i].sec < keys[j].sec
		}
		return keys[i].series < keys[j].series
	})
	for _, k := range keys {
		out.Timeseries = append(out.Timeseries, results.Sample{Second: k.sec, Series: k.series, Value: vals[k]})
	}
}

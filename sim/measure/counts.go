package measure

import (
	"fmt"
	"math"
	"sort"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
)

// awsCalls is measureAWSCalls's result.
type awsCalls struct {
	perOperation, beforeFirstMeaningful map[string]int
	throttled, throttledBeforeFirst     int
}

func (a awsCalls) addTo(out *Output) {
	out.Summary.AWSCalls, out.Summary.Throttled = a.perOperation, a.throttled
	out.Summary.AWSCallsBeforeFirstMeaningful, out.Summary.ThrottledBeforeFirstMeaningful = a.beforeFirstMeaningful, a.throttledBeforeFirst
}

// measureAWSCalls counts AWS calls per operation and throttled calls, in total and between the
// first restart and its first meaningful mutation (firstMeaningful, nil: none).
func measureAWSCalls(in *Input, firstMeaningful *float64) awsCalls {
	res := awsCalls{perOperation: map[string]int{}, beforeFirstMeaningful: map[string]int{}}
	r, hasRestart := in.FirstRestart()
	for i := range in.Calls {
		c := &in.Calls[i]
		if c.Service == fakeaws.ServiceAdmin || c.Service == "" {
			continue
		}
		throttled := c.Outcome == fakeaws.OutcomeThrottled
		res.perOperation[c.Operation]++
		if throttled {
			res.throttled++
		}
		t := in.Sec(c)
		if hasRestart && t >= r.Started && (firstMeaningful == nil || t < *firstMeaningful) {
			res.beforeFirstMeaningful[c.Operation]++
			if throttled {
				res.throttledBeforeFirst++
			}
		}
	}
	return res
}

// k8sWrites is measureK8sWrites's result.
type k8sWrites struct{ writes results.K8sWrites }

func (k k8sWrites) addTo(out *Output) { out.Summary.K8sWrites = k.writes }

// measureK8sWrites classifies the controller's successful writes to the objects it owns or
// annotates, from the audit log (its reads, and writes of its own bookkeeping such as Leases, are
// not counted).
func measureK8sWrites(in *Input) k8sWrites {
	var res k8sWrites
	w := &res.writes
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
	return res
}

// apiLoad is measureAPILoad's result (nil: no audit log was read).
type apiLoad struct{ load *results.APILoad }

func (a apiLoad) addTo(out *Output) { out.Summary.APILoad = a.load }

// measureAPILoad counts the controller identity's reads and Lease writes in the measured phase:
// what its informers, warm standbys' included, and its leader election cost the API server.
func measureAPILoad(in *Input) apiLoad {
	if !in.HasAudit {
		return apiLoad{}
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
	return apiLoad{l}
}

// countedWrite lists the resources whose writes k8s_writes_total counts.
var countedWrite = map[string]bool{"targetgroupbindings": true, "pods": true, "events": true}

// blindCosts is measureBlindCosts's result (nil: not known).
type blindCosts struct {
	apiRequests      *int
	cpuSeconds       *float64
	cacheSyncSeconds *float64
}

func (b blindCosts) addTo(out *Output) {
	out.Summary.APIRequestsBeforeFirstMeaningful = b.apiRequests
	out.Summary.ControllerCPUSecondsBeforeFirstMeaningful = b.cpuSeconds
	out.Summary.CacheSyncSeconds = b.cacheSyncSeconds
}

// measureBlindCosts is what the first restart's replacement spent before its first meaningful
// mutation (firstMeaningful, nil: none): Kubernetes API requests (all verbs, from the audit log)
// and process CPU time; and how long it took to sync its caches.
func measureBlindCosts(in *Input, firstMeaningful *float64) blindCosts {
	var res blindCosts
	r, ok := in.FirstRestart()
	if !ok || firstMeaningful == nil {
		return res
	}
	end := *firstMeaningful
	if in.HasAudit {
		n := 0
		for _, e := range in.Audit {
			if e.At >= r.Started && e.At < end {
				n++
			}
		}
		res.apiRequests = &n
	}
	// From the stop: a standby's CPU while it stood by is no part of the restart's cost.
	if cpu, ok := cpuAt(in.ReplacementCPU, end); ok {
		if before, ok := cpuAt(in.ReplacementCPU, r.Stopped); ok {
			cpu = math.Round((cpu-before)*1000) / 1000
		}
		res.cpuSeconds = &cpu
	}
	// Cache sync counts from when the instance could lead: its start, or the Lease it waited for
	// (a standby's own start predates the restart).
	if synced := in.cachesSynced(0); synced != nil {
		from := r.Started
		if r.LeaderElection && r.Leading != nil {
			from = *r.Leading
		}
		res.cacheSyncSeconds = ptr(max(0, *synced-from))
	}
	return res
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

// gateFlips is measureGateFlips's result.
type gateFlips struct{ latency results.Quantiles }

func (g gateFlips) addTo(out *Output) { out.Summary.ReadinessGateFlip = g.latency }

// measureGateFlips times every readiness gate's flip to True from when it was pending.
func measureGateFlips(in *Input) gateFlips {
	var lats []float64
	for _, f := range in.GateFlips {
		if f.True != nil && *f.True >= f.Pending {
			lats = append(lats, *f.True-f.Pending)
		}
	}
	return gateFlips{Quantiles(lats)}
}

// steadyState is measureSteadyState's result (nil: never reached).
type steadyState struct{ seconds *float64 }

func (s steadyState) addTo(out *Output) { out.Summary.SteadyStateSeconds = s.seconds }

// measureSteadyState is when the final steady state was reached, like TTFMR from the first
// restart's origin (without a restart, from the measured phase's start).
func measureSteadyState(in *Input) steadyState {
	r, ok := in.FirstRestart()
	if !ok {
		r.Stopped = 0
	}
	if in.SteadyAt == nil {
		return steadyState{}
	}
	return steadyState{ptr(max(0, *in.SteadyAt-r.Origin()))}
}

// series is a measurement's time series, in the order reported.
type series []results.Sample

func (s series) addTo(out *Output) { out.Timeseries = append(out.Timeseries, s...) }

// measureSeries buckets calls per operation and throttles per second, and keeps the last sample
// of every metric series per second.
func measureSeries(in *Input) series {
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
	var res series
	for _, k := range keys {
		res = append(res, results.Sample{Second: k.sec, Series: k.series, Value: vals[k]})
	}
	return res
}

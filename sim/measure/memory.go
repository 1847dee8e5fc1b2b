package measure

import (
	"math"
	"sort"
	"strconv"

	"github.com/restartsim/restartsim/results"
)

// MemoryReading is one reading of one controller instance's memory at scenario second At.
type MemoryReading struct {
	// Instance is the replica, or results.HarnessInstance.
	Instance int
	At       float64
	// RSS is the largest resident size sampled since the instance's previous reading, HWM the
	// kernel's high-water mark so far (0: unknown), in bytes.
	RSS, HWM int64
	// HeapInuse and HeapAlloc are the Go heap's gauges (nil: not exposed).
	HeapInuse, HeapAlloc *float64
}

// Memory describes Input.Memory.
type Memory struct {
	// Shared tells the readings are the harness's process, which in-process replicas share.
	Shared bool
	// Interval is the wall time between two readings of an instance, in seconds.
	Interval float64
	// Takeover is the instance that took over after the first restart and TakeoverStarted when it
	// was started (nil: none).
	Takeover        *int
	TakeoverStarted float64
	// Readings are in time order per instance.
	Readings []MemoryReading
}

// memory is measureMemory's result (nil: not read).
type memory struct {
	memory *results.Memory
	series series
}

func (m memory) addTo(out *Output) {
	out.Summary.Memory = m.memory
	m.series.addTo(out)
}

// measureMemory summarises every instance's memory and attributes the first restart's peak to
// its phases (restart, nil without one: its Lease and cache-sync times).
func measureMemory(in *Input, restart *results.RestartPhases) memory {
	m := in.Memory
	if m == nil || len(m.Readings) == 0 {
		return memory{}
	}
	res := &results.Memory{Process: results.MemoryProcessController, SampleIntervalSeconds: Round3(m.Interval)}
	if m.Shared {
		res.Process = results.MemoryProcessHarness
	}
	byInstance, order := map[int][]MemoryReading{}, []int{}
	for _, r := range m.Readings {
		if _, ok := byInstance[r.Instance]; !ok {
			order = append(order, r.Instance)
		}
		byInstance[r.Instance] = append(byInstance[r.Instance], r)
	}
	stopped := stoppedInstances(in)
	for _, id := range order {
		role := results.MemoryRoleStandby
		switch {
		case m.Shared:
			role = results.MemoryRoleHarness
		case m.Takeover != nil && *m.Takeover == id:
			role = results.MemoryRoleTakeover
		case stopped[id]:
			role = results.MemoryRoleStopped
		}
		res.Instances = append(res.Instances, instanceMemory(id, role, byInstance[id]))
	}
	res.Restart = restartMemory(in, restart, m, byInstance)
	return memory{memory: res, series: memorySeries(m.Readings, in.End)}
}

// stoppedInstances are the instances a restart stopped (known for external processes only).
func stoppedInstances(in *Input) map[int]bool {
	out := map[int]bool{}
	for _, r := range in.Restarts {
		for _, p := range r.AtStop {
			if p.Role == results.RoleLeader {
				out[p.Replica] = true
			}
		}
	}
	return out
}

// memoryPeak is the largest value among readings and when it was first read.
type memoryPeak struct {
	bytes int64
	at    float64
	found bool
}

func (p *memoryPeak) add(v float64, at float64) {
	if b := int64(v); !p.found || b > p.bytes {
		p.bytes, p.at, p.found = b, at, true
	}
}

func instanceMemory(id int, role string, rs []MemoryReading) results.InstanceMemory {
	first, last := rs[0], rs[len(rs)-1]
	im := results.InstanceMemory{Instance: id, Role: role, FirstSeconds: Round3(first.At), LastSeconds: Round3(last.At),
		LastRSSBytes: last.RSS, HighWaterMarkBytes: last.HWM}
	var rss, inuse, alloc memoryPeak
	for _, r := range rs {
		rss.add(float64(r.RSS), r.At)
		if r.HeapInuse != nil {
			inuse.add(*r.HeapInuse, r.At)
		}
		if r.HeapAlloc != nil {
			alloc.add(*r.HeapAlloc, r.At)
		}
	}
	im.PeakRSSBytes, im.PeakRSSSeconds = rss.bytes, Round3(rss.at)
	if inuse.found {
		im.PeakHeapInuseBytes, im.PeakHeapInuseSeconds = &inuse.bytes, ptr(Round3(inuse.at))
	}
	if alloc.found {
		im.PeakHeapAllocBytes = &alloc.bytes
	}
	if last.HeapInuse != nil {
		im.LastHeapInuseBytes = bytesPtr(*last.HeapInuse)
	}
	return im
}

// restartMemory is the first restart's taking-over instance's memory, from its start (or the
// stop, for an instance already running then) until the next restart's stop.
func restartMemory(in *Input, restart *results.RestartPhases, m *Memory, byInstance map[int][]MemoryReading) *results.RestartMemory {
	r, ok := in.FirstRestart()
	if !ok || restart == nil {
		return nil
	}
	id, from := results.HarnessInstance, r.Stopped
	if !m.Shared {
		if m.Takeover == nil {
			return nil
		}
		id, from = *m.Takeover, math.Max(r.Stopped, m.TakeoverStarted)
	}
	end := in.restartEnd(0)
	rm := &results.RestartMemory{Instance: id, FromSeconds: Round3(from)}
	var rss, inuse memoryPeak
	var last *MemoryReading
	for i, rd := range byInstance[id] {
		if rd.At < from {
			rm.BeforeRSSBytes = rd.RSS
			if rd.HeapInuse != nil {
				rm.BeforeHeapInuseBytes = bytesPtr(*rd.HeapInuse)
			}
			continue
		}
		if rd.At >= end {
			break
		}
		rss.add(float64(rd.RSS), rd.At)
		if rd.HeapInuse != nil {
			inuse.add(*rd.HeapInuse, rd.At)
		}
		last = &byInstance[id][i]
	}
	if last == nil {
		return nil
	}
	rm.PeakRSSBytes, rm.PeakRSSSeconds, rm.PeakRSSPhase = rss.bytes, Round3(rss.at), restartPhaseAt(restart, rss.at)
	rm.EndRSSBytes, rm.HighWaterMarkBytes = last.RSS, last.HWM
	if inuse.found {
		rm.PeakHeapInuseBytes, rm.PeakHeapSeconds = &inuse.bytes, ptr(Round3(inuse.at))
		rm.PeakHeapPhase = restartPhaseAt(restart, inuse.at)
	}
	if last.HeapInuse != nil {
		rm.EndHeapInuseBytes = bytesPtr(*last.HeapInuse)
	}
	return rm
}

// restartPhaseAt names the restart phase second t fell in: waiting for the Lease, syncing the
// caches, or after they synced.
func restartPhaseAt(ph *results.RestartPhases, t float64) string {
	if ph.LeaderElection && ph.LeadingSeconds != nil && t < *ph.LeadingSeconds {
		return results.PhaseBeforeLease
	}
	switch {
	case ph.CachesSyncedSeconds == nil:
		return results.PhaseUnknownSyncTime
	case t < *ph.CachesSyncedSeconds:
		return results.PhaseSyncingCaches
	}
	return results.PhaseAfterCacheSync
}

// memorySeries is each instance's largest reading per second of the measured phase, for the
// memory figure.
func memorySeries(rs []MemoryReading, end float64) series {
	type key struct {
		sec    int
		series string
	}
	peak := map[key]float64{}
	var keys []key
	note := func(k key, v float64) {
		old, ok := peak[k]
		if !ok {
			keys = append(keys, k)
		}
		if !ok || v > old {
			peak[k] = v
		}
	}
	for _, r := range rs {
		if r.At < 0 || r.At > end {
			continue
		}
		sec, inst := int(math.Floor(r.At)), strconv.Itoa(r.Instance)
		note(key{sec, results.SeriesMemoryRSS + ":" + inst}, float64(r.RSS))
		if r.HeapInuse != nil {
			note(key{sec, results.SeriesMemoryHeap + ":" + inst}, *r.HeapInuse)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].sec != keys[j].sec {
			return keys[i].sec < keys[j].sec
		}
		return keys[i].series < keys[j].series
	})
	out := make([]results.Sample, 0, len(keys))
	for _, k := range keys {
		out = append(out, results.Sample{Second: k.sec, Series: k.series, Value: peak[k]})
	}
	return out
}

func bytesPtr(v float64) *int64 { b := int64(v); return &b }

package predict

import (
	"math"
	"slices"
	"sort"

	"github.com/restartsim/restartsim/fakeaws"
)

// kindCalls gathers one kind's calls of the re-read.
type kindCalls struct {
	Kind
	times   map[string][]float64 // each resource's calls
	buckets map[string]int
	// calm are the gaps between the kind's consecutive calls where the later one found its bucket
	// with tokens to spare, all every gap.
	calm, all []float64
	last      float64
	// throttled counts the kind's turned-away calls; throttledAt holds a resource's last one until
	// its retry, and backoffs the time between them.
	throttled   int
	throttledAt map[string]float64
	backoffs    []float64
	retries     []backoff
	ok          []okCall
}

// backoff is one resource's wait between a throttled call and its retry.
type backoff struct {
	item     string
	from, to float64
}

type okCall struct {
	item string
	at   float64
}

// fitKinds turns the re-read's calls into kinds: objects in the order the re-read reached them,
// calls an object by bucket, workers and pace. known are the resources, by kind, that calls before
// the re-read named: those it did not reach are its unreached tail.
func fitKinds(rr reRead, fleet int, known map[string]map[string]bool) []Kind {
	byName := map[string]*kindCalls{}
	var order []*kindCalls
	for i := range rr.calls {
		c := &rr.calls[i]
		k := byName[c.kind]
		if k == nil {
			k = &kindCalls{Kind: Kind{Name: c.kind, Start: c.at - rr.first, positions: map[string]int{}},
				times: map[string][]float64{}, buckets: map[string]int{}, throttledAt: map[string]float64{}}
			byName[c.kind] = k
			order = append(order, k)
		}
		if _, seen := k.positions[c.item]; !seen {
			k.positions[c.item] = len(k.positions)
		}
		if retry := k.throttledAt[c.item]; retry > 0 {
			k.backoffs = append(k.backoffs, c.at-retry)
			k.retries = append(k.retries, backoff{c.item, retry, c.at})
			delete(k.throttledAt, c.item)
		}
		if c.Outcome == fakeaws.OutcomeThrottled {
			k.throttled++
			k.throttledAt[c.item] = c.at
			continue
		}
		k.times[c.item] = append(k.times[c.item], c.at)
		k.ok = append(k.ok, okCall{c.item, c.at})
		if k.buckets[c.Bucket] == 0 {
			k.PerObject = append(k.PerObject, BucketCalls{Bucket: c.Bucket, Mutating: c.Call.Mutates()})
		}
		k.buckets[c.Bucket]++
		if len(k.times) > 1 || len(k.times[c.item]) > 1 {
			k.all = append(k.all, c.at-k.last)
			if c.calm {
				k.calm = append(k.calm, c.at-k.last)
			}
		}
		k.last = c.at
	}
	out := make([]Kind, 0, len(order))
	for _, k := range order {
		reached := len(k.positions)
		k.Scales = 2*reached >= fleet
		if k.Scales {
			// A kind that re-read half the fleet re-reads all of it; one that re-read a handful (ACK's
			// listeners: the two with changes, of 50) leaves the rest alone, and has no tail.
			for item := range known[k.Name] {
				if _, ok := k.positions[item]; !ok {
					k.Unreached++
				}
			}
		}
		k.Objects = reached + k.Unreached
		for i := range k.PerObject {
			k.PerObject[i].Calls = float64(k.buckets[k.PerObject[i].Bucket]) / float64(reached)
		}
		var seen bool
		if k.Workers, seen = k.workersAroundBackoffs(); !seen {
			k.Workers = k.concurrency(rr.last - rr.first)
		}
		gaps := k.calm
		if len(gaps) < 5 {
			gaps = k.all
		}
		k.Pace = trimmedMean(gaps) * float64(k.Workers)
		k.Throttled = float64(k.throttled) / float64(k.Objects)
		k.Backoff = trimmedMean(k.backoffs)
		out = append(out, k.Kind)
	}
	return out
}

// concurrency is how many of the kind's objects were in work at once, on average over the time any
// was: each object's first visit spans its first call to its last before a long pause (a later
// visit, such as the reconcile a change triggers, is not the re-read). Objects of one call show no
// span; such a kind counts as one worker whose pace is the kind's.
func (k *kindCalls) concurrency(drain float64) int {
	pause := max(30, drain/20)
	type edge struct {
		at    float64
		delta int
	}
	var edges []edge
	var calls []int
	for _, ts := range k.times {
		slices.Sort(ts)
		end := 0
		for end+1 < len(ts) && ts[end+1]-ts[end] <= pause {
			end++
		}
		calls = append(calls, end+1)
		if end > 0 {
			edges = append(edges, edge{ts[0], 1}, edge{ts[end], -1})
		}
	}
	sort.Ints(calls)
	if len(calls) == 0 || calls[len(calls)/2] < 2 {
		return 1
	}
	sort.Slice(edges, func(i, j int) bool {
		if edges[i].at != edges[j].at {
			return edges[i].at < edges[j].at
		}
		return edges[i].delta < edges[j].delta
	})
	var busy, weighted float64
	open := 0
	for i, e := range edges {
		if i > 0 && open > 0 {
			d := e.at - edges[i-1].at
			busy += d
			weighted += d * float64(open)
		}
		open += e.delta
	}
	if busy == 0 {
		return 1
	}
	return max(1, int(math.Round(weighted/busy)))
}

// trimmedMean is the mean of the gaps without the longest 5 %: the pace is a throughput (workers
// fire in bursts, so a median gap is near zero), and the few long gaps are pauses between visits,
// not work.
func trimmedMean(gaps []float64) float64 {
	if len(gaps) == 0 {
		return 0
	}
	s := slices.Clone(gaps)
	slices.Sort(s)
	s = s[:max(1, len(s)-len(s)/20)]
	sum := 0.0
	for _, g := range s {
		sum += g
	}
	return sum / float64(len(s))
}

// maxWorkers caps a kind's workers where its calls never paused for a backoff: more workers than
// that would only split the same bucket finer.
const maxWorkers = 16

// workersAroundBackoffs reads the kind's workers from what its other objects did while one waited
// out a throttle: with one worker nothing happens (the worker sleeps), with W the other W−1 go on,
// at (W−1)/W of the kind's rate. false: too few backoffs to tell.
func (k *kindCalls) workersAroundBackoffs() (int, bool) {
	if len(k.ok) < 2 {
		return 0, false
	}
	span := k.ok[len(k.ok)-1].at - k.ok[0].at
	if span <= 0 {
		return 0, false
	}
	rate := float64(len(k.ok)) / span
	var others, expected float64
	for _, b := range k.retries {
		i, _ := slices.BinarySearchFunc(k.ok, b.from, func(c okCall, t float64) int { return cmpFloat(c.at, t) })
		for ; i < len(k.ok) && k.ok[i].at < b.to; i++ {
			if k.ok[i].item != b.item && k.ok[i].at > b.from {
				others++
			}
		}
		expected += rate * (b.to - b.from)
	}
	if expected < 5 {
		return 0, false
	}
	ratio := others / expected
	if ratio >= 1-1.0/maxWorkers {
		return min(maxWorkers, k.Objects), true
	}
	return max(1, int(math.Round(1/(1-ratio)))), true
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

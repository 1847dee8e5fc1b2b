package predict

import (
	"math"
	"slices"
	"sort"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/stats"
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
}

// fitKinds turns the re-read's calls into kinds: objects in the order the re-read reached them,
// calls an object by bucket, workers and pace.
func fitKinds(rr reRead, fleet int) []Kind {
	byName := map[string]*kindCalls{}
	var order []*kindCalls
	for i := range rr.calls {
		c := &rr.calls[i]
		k := byName[c.kind]
		if k == nil {
			k = &kindCalls{Kind: Kind{Name: c.kind, Start: c.at - rr.first, positions: map[string]int{}},
				times: map[string][]float64{}, buckets: map[string]int{}}
			byName[c.kind] = k
			order = append(order, k)
		}
		if _, seen := k.positions[c.item]; !seen {
			k.positions[c.item] = len(k.positions)
		}
		if c.Outcome == fakeaws.OutcomeThrottled {
			continue
		}
		k.times[c.item] = append(k.times[c.item], c.at)
		if k.buckets[c.Bucket] == 0 {
			k.PerObject = append(k.PerObject, BucketCalls{Bucket: c.Bucket})
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
		k.Objects = len(k.positions)
		k.Scales = 2*k.Objects >= fleet
		for i := range k.PerObject {
			k.PerObject[i].Calls = float64(k.buckets[k.PerObject[i].Bucket]) / float64(k.Objects)
		}
		k.Workers = k.concurrency(rr.last - rr.first)
		gaps := k.calm
		if len(gaps) < 5 {
			gaps = k.all
		}
		if len(gaps) > 0 {
			k.Pace = stats.Median(gaps) * float64(k.Workers)
		}
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

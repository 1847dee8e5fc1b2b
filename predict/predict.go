package predict

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/predict/queue"
)

// MaxResidual is how far the model may miss the run it was fitted on, as a share of the measured
// value (the re-read's drain, and the median change): beyond it the run has a pattern the queue
// does not explain (a retry storm, a second restart's worth of work, a controller that waits on
// something other than AWS), and a prediction would only scale that error.
const MaxResidual = 0.25

// Spread is a figure over random queue orders: the median and the central 95 % of orders.
type Spread struct {
	Median float64 `json:"median"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// Forecast is the model's restart at one fleet size.
type Forecast struct {
	Size    int            `json:"size"`
	Objects map[string]int `json:"objects"`
	Start   float64        `json:"startSeconds"`
	// BlindP50, BlindP95 and TTFMR are over the restart's changes, placed at random in their kinds'
	// queues; Orders is how many orders were drawn.
	BlindP50 Spread         `json:"blindP50Seconds"`
	BlindP95 Spread         `json:"blindP95Seconds"`
	TTFMR    Spread         `json:"ttfmrSeconds"`
	Orders   int            `json:"orders"`
	Steady   float64        `json:"steadyStateSeconds"`
	Calls    map[string]int `json:"awsCalls"`
	// Throttled counts the calls AWS would turn away, by bucket (kinds whose run saw throttling).
	Throttled map[string]int `json:"throttled"`
}

// Check is the model against the run it was fitted on.
type Check struct {
	Drain      float64 `json:"drainSeconds"`
	ModelDrain float64 `json:"modelDrainSeconds"`
	// Changes pairs each placed change's measured blind time with the model's at its position.
	Changes []CheckedChange `json:"changes"`
}

// CheckedChange is one change's measured and modelled blind time.
type CheckedChange struct {
	QueuedChange
	Model float64 `json:"modelSeconds"`
}

// Residual is the model's miss on the drain and on the median change, whichever is larger, as a
// share of the measured value.
func (c Check) Residual() float64 {
	r := 0.0
	if c.Drain > 1 {
		r = math.Abs(c.ModelDrain-c.Drain) / c.Drain
	}
	var rel []float64
	for _, ch := range c.Changes {
		if *ch.Blind > 0 {
			rel = append(rel, math.Abs(ch.Model-*ch.Blind) / *ch.Blind)
		}
	}
	if len(rel) > 0 {
		r = max(r, stats.Median(rel))
	}
	return r
}

// Explain runs the model at the run's own size and compares it with what was measured; a miss beyond
// MaxResidual is an Unexplained error, with the check for the reader.
func (m *Model) Explain() (Check, error) {
	for _, ch := range m.Changes {
		if ch.Blind == nil {
			return Check{}, unexplained("change %s was never applied: the run has no time for it to fit", ch.ID)
		}
	}
	res, err := queue.Simulate(m.queueKinds(m.Fleet), m.Buckets)
	if err != nil {
		return Check{}, err
	}
	c := Check{Drain: m.Drain, ModelDrain: m.reachedEnd(res)}
	for _, ch := range m.Changes {
		k := m.kindIndex(ch.Kind)
		if ch.Position < 0 || k < 0 || ch.Position >= len(res.Done[k]) {
			continue
		}
		c.Changes = append(c.Changes, CheckedChange{QueuedChange: ch, Model: m.blind(m.Start, res.Done[k][ch.Position], res.End, ch.Lead, k)})
	}
	if r := c.Residual(); r > MaxResidual {
		return c, unexplained("fitted on itself the model misses by %.0f %% (drain %.1f s measured, %.1f s modelled; at most %.0f %%)",
			100*r, c.Drain, c.ModelDrain, 100*MaxResidual)
	}
	return c, nil
}

// reachedEnd is when the model is done with the objects the run's re-read reached; its unreached
// tail comes after the run's own end.
func (m *Model) reachedEnd(res queue.Result) float64 {
	end := 0.0
	for k, kind := range m.Kinds {
		if reached := min(kind.Objects-kind.Unreached, len(res.Done[k])); reached > 0 {
			end = max(end, slices.Max(res.Done[k][:reached]))
		}
	}
	return end
}

// Forecast simulates the restart at size (in the run's fleet terms) and draws orders random queue
// orders for the restart's changes; seed makes the draw repeatable.
func (m *Model) Forecast(size, orders int, seed uint64) (Forecast, error) {
	if size < 1 || size > MaxSize || orders < 1 || orders > MaxOrders {
		return Forecast{}, fmt.Errorf("size %d and orders %d: size must be 1 to %d, orders 1 to %d", size, orders, MaxSize, MaxOrders)
	}
	kinds := m.queueKinds(size)
	res, err := queue.Simulate(kinds, m.Buckets)
	if err != nil {
		return Forecast{}, err
	}
	start := m.Start + m.CacheSync*(float64(size)/float64(m.Fleet)-1)
	f := Forecast{Size: size, Objects: map[string]int{}, Start: start, Orders: orders,
		Steady: start + res.End + m.Settle, Calls: res.Calls, Throttled: res.Throttled}
	for _, k := range kinds {
		f.Objects[k.Name] = k.Objects
	}
	if len(m.Changes) == 0 {
		return f, nil
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var p50s, p95s, firsts []float64
	blinds := make([]float64, len(m.Changes))
	for range orders {
		taken := map[[2]int]bool{}
		for j, ch := range m.Changes {
			k := m.kindIndex(ch.Kind)
			if k < 0 {
				k = m.mainKind()
			}
			n := len(res.Done[k])
			pos := rng.IntN(n)
			for taken[[2]int{k, pos}] && len(taken) < n {
				pos = rng.IntN(n)
			}
			taken[[2]int{k, pos}] = true
			blinds[j] = m.blind(start, res.Done[k][pos], res.End, ch.Lead, k)
		}
		p50s = append(p50s, stats.Median(blinds))
		p95s = append(p95s, stats.Quantile(blinds, 0.95))
		firsts = append(firsts, slices.Min(blinds))
	}
	f.BlindP50, f.BlindP95, f.TTFMR = spread(p50s), spread(p95s), spread(firsts)
	return f, nil
}

// blind is a change's blind time when its object's turn in the re-read ends at done, and the re-read
// at end (both from its first call): the start-up and the wait, less how long after the origin the
// change was made. A change made after its object's turn queues again behind the rest of the
// re-read, and one made after the re-read waits for one reconcile, a call's pace.
func (m *Model) blind(start, done, end, lead float64, kind int) float64 {
	switch {
	case start+done >= lead:
		return start + done - lead
	case start+end >= lead:
		return start + end - lead + m.Kinds[kind].Pace
	}
	return m.Kinds[kind].Pace
}

func spread(v []float64) Spread {
	return Spread{Median: stats.Median(v), Low: stats.Quantile(v, 0.025), High: stats.Quantile(v, 0.975)}
}

func (m *Model) kindIndex(name string) int {
	for i, k := range m.Kinds {
		if k.Name == name && name != "" {
			return i
		}
	}
	return -1
}

// mainKind is the kind with the most objects: where a change the call log did not place most
// likely waits.
func (m *Model) mainKind() int {
	best := 0
	for i, k := range m.Kinds {
		if k.Objects > m.Kinds[best].Objects {
			best = i
		}
	}
	return best
}

// queueKinds are the model's kinds at a fleet size: a kind that scales grows in proportion, and an
// object's fractional calls fall on a matching share of the objects.
func (m *Model) queueKinds(size int) []queue.Kind {
	out := make([]queue.Kind, 0, len(m.Kinds))
	for _, k := range m.Kinds {
		n := k.Objects
		if k.Scales {
			n = int(math.Round(float64(k.Objects) * float64(size) / float64(m.Fleet)))
		}
		q := queue.Kind{Name: k.Name, Objects: max(n, 1), Workers: k.Workers, Start: k.Start}
		if k.Throttled > 0 {
			q.Backoff = k.Backoff
		}
		perCall := k.Pace
		for _, b := range k.PerObject {
			if b.Mutating {
				b.Calls *= float64(k.Objects) / float64(n) // as many mutations as the run's changes made
			}
			whole := int(b.Calls)
			for range whole {
				q.Calls = append(q.Calls, queue.Call{Bucket: b.Bucket, Seconds: perCall})
			}
			if frac := b.Calls - float64(whole); frac > 1e-9 {
				q.Extra = append(q.Extra, queue.Extra{Call: queue.Call{Bucket: b.Bucket, Seconds: perCall}, Share: frac})
			}
		}
		out = append(out, q)
	}
	return out
}

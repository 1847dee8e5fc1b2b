// Package faults decides, per call, the injected latency, injected errors and outages. Everything is in scenario
// time and the jitter and error draws come from one seeded source, so a run can be replayed.
package faults

import (
	"math/rand/v2"
	"sort"
	"sync"
	"time"
)

// Latency is base + uniform jitter in [0, Jitter).
type Latency struct {
	Base   time.Duration `json:"base"`
	Jitter time.Duration `json:"jitter"`
}

// ErrorRate injects Code with probability Rate (0..1).
type ErrorRate struct {
	Rate float64 `json:"rate"`
	Code string  `json:"code"`
}

// Outage makes every matching call fail with ServiceUnavailable during [Start, End).
type Outage struct {
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Services []string  `json:"services,omitempty"` // empty: all
}

// All is the key that applies to every operation without its own setting.
const All = "*"

// Injector holds the fault settings.
type Injector struct {
	mu      sync.Mutex
	rng     *rand.Rand
	latency map[string]Latency
	errors  map[string]ErrorRate
	outages []Outage
}

// New returns an Injector drawing from seed.
func New(seed uint64) *Injector {
	return &Injector{rng: rand.New(rand.NewPCG(seed, 0xfa017)), latency: map[string]Latency{}, errors: map[string]ErrorRate{}}
}

// SetLatency sets the latency of op (or All); a zero Latency removes it.
func (f *Injector) SetLatency(op string, l Latency) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if l == (Latency{}) {
		delete(f.latency, op)
		return
	}
	f.latency[op] = l
}

// SetErrorRate sets the injected error rate of op (or All); rate 0 removes it.
func (f *Injector) SetErrorRate(op string, e ErrorRate) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if e.Rate <= 0 {
		delete(f.errors, op)
		return
	}
	f.errors[op] = e
}

// AddOutage adds an outage window.
func (f *Injector) AddOutage(o Outage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outages = append(f.outages, o)
	sort.Slice(f.outages, func(i, j int) bool { return f.outages[i].Start.Before(f.outages[j].Start) })
}

// ClearOutages removes every outage window.
func (f *Injector) ClearOutages() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.outages = nil
}

// Decision is what happens to one call.
type Decision struct {
	Delay  time.Duration
	Outage bool
	Code   string // injected error code, "" for none
}

// Decide draws the faults for one call of service/op at scenario time now.
func (f *Injector) Decide(service, op string, now time.Time) Decision {
	f.mu.Lock()
	defer f.mu.Unlock()
	var d Decision
	for _, o := range f.outages {
		if now.Before(o.Start) || !now.Before(o.End) {
			continue
		}
		if len(o.Services) == 0 {
			d.Outage = true
		}
		for _, s := range o.Services {
			if s == service {
				d.Outage = true
			}
		}
	}
	l, ok := f.latency[op]
	if !ok {
		l = f.latency[All]
	}
	d.Delay = l.Base
	if l.Jitter > 0 {
		d.Delay += time.Duration(f.rng.Int64N(int64(l.Jitter)))
	}
	e, ok := f.errors[op]
	if !ok {
		e = f.errors[All]
	}
	if e.Rate > 0 && f.rng.Float64() < e.Rate {
		d.Code = e.Code
	}
	return d
}

package backend

import (
	"maps"
	"slices"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/scenario"
)

// ApplyMeasuredLimits switches fakeaws to the measured phase's profile, overrides, latency and
// standing error rates.
func ApplyMeasuredLimits(b Backend, a *scenario.AWS) error {
	if err := b.SetProfile(a.Profile); err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(a.Overrides)) {
		o := a.Overrides[k]
		if err := b.SetLimit(k, o.Rate, o.Burst); err != nil {
			return err
		}
	}
	for _, k := range slices.Sorted(maps.Keys(a.Latency)) {
		l := a.Latency[k]
		if err := b.SetLatency(Operation(k), l.Base.Duration, l.Jitter.Duration); err != nil {
			return err
		}
	}
	for _, f := range a.Faults {
		if err := b.SetErrorRate(Operation(f.Operation), f.Rate, f.Code); err != nil {
			return err
		}
	}
	return nil
}

// Operation maps the scenario's "*" (or nothing) onto fakeaws' all-operations key.
func Operation(o string) string {
	if o == "" || o == "*" {
		return fakeaws.AllOperations
	}
	return o
}

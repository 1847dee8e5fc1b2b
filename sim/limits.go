package sim

import (
	"github.com/restartsim/restartsim/sim/scenario"
)

// applyMeasuredLimits switches fakeaws to the measured phase's profile, overrides, latency and
// standing error rates.
func applyMeasuredLimits(b awsBackend, a *scenario.AWS) error {
	if err := b.SetProfile(a.Profile); err != nil {
		return err
	}
	for _, k := range sortedKeys(a.Overrides) {
		o := a.Overrides[k]
		if err := b.SetLimit(k, o.Rate, o.Burst); err != nil {
			return err
		}
	}
	for _, k := range sortedKeys(a.Latency) {
		l := a.Latency[k]
		if err := b.SetLatency(op(k), l.Base.Duration, l.Jitter.Duration); err != nil {
			return err
		}
	}
	for _, f := range a.Faults {
		if err := b.SetErrorRate(op(f.Operation), f.Rate, f.Code); err != nil {
			return err
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

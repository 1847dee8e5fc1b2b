package measure

import (
	"math"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

// Measurement computes some figures of a run.
type Measurement interface {
	Name() string
	Measure(in *Input, out *Output)
}

// Output is what the measurements fill: the summary, the per-change list and the time series.
type Output struct {
	Summary    results.Summary
	Changes    []results.Change
	Timeseries []results.Sample // Strategy left empty; the caller sets it
	// Restart is the first restart's steps (nil without a restart); Restarts every restart's, in order.
	Restart  *results.RestartPhases
	Restarts []results.RestartPhases
	// Unapplied are the changes AWS did not show by the run's end (see applications.latency).
	Unapplied []results.UnappliedChange
	// firstMeaningful is the scenario second of the first meaningful mutation (TTFMR's end);
	// restartFirstMeaningful is each restart's first within its window.
	firstMeaningful        *float64
	restartFirstMeaningful []*float64
}

// registry lists the measurements in the order they run (later ones may use earlier results).
var registry = []Measurement{changeLatency{}, ttfmr{}, blindTime{}, restartPhases{}, awsCalls{}, blindCosts{}, work{}, memory{}, k8sWrites{}, apiLoad{}, gateFlips{}, driftRepair{}, steadyState{}, series{}}

// Names lists the registered measurements.
func Names() []string {
	out := make([]string, len(registry))
	for i, m := range registry {
		out[i] = m.Name()
	}
	return out
}

// Run applies every measurement to in.
func Run(in *Input) *Output {
	out := &Output{Summary: results.Summary{AWSCalls: map[string]int{}, AWSCallsBeforeFirstMeaningful: map[string]int{}}}
	for _, m := range registry {
		m.Measure(in, out)
	}
	return out
}

// Quantiles summarises measured values: their median (stats.Median, the mean of the middle two for an
// even count) and their nearest-rank p95, p99 and maximum, each to the millisecond.
func Quantiles(vals []float64) results.Quantiles {
	if len(vals) == 0 {
		return results.Quantiles{}
	}
	return results.Quantiles{Count: len(vals), P50: Round3(stats.Median(vals)), P95: Round3(stats.Quantile(vals, 0.95)),
		P99: Round3(stats.Quantile(vals, 0.99)), Max: Round3(stats.Quantile(vals, 1))}
}

// CensoredQuantiles is Quantiles of values some of which are lower bounds (changes never applied):
// each bound stands for its value, and a percentile a bound reaches is flagged as only a lower
// bound (stats.CensoredQuantile), never dropped.
func CensoredQuantiles(vals []stats.Value) results.Quantiles {
	if len(vals) == 0 {
		return results.Quantiles{}
	}
	q := results.Quantiles{Count: len(vals)}
	for _, v := range vals {
		if v.Censored {
			q.Censored++
		}
	}
	var p50, p95, p99, pmax float64
	p50, q.P50Censored = stats.CensoredMedian(vals)
	p95, q.P95Censored = stats.CensoredQuantile(vals, 0.95)
	p99, q.P99Censored = stats.CensoredQuantile(vals, 0.99)
	pmax, q.MaxCensored = stats.CensoredQuantile(vals, 1)
	q.P50, q.P95, q.P99, q.Max = Round3(p50), Round3(p95), Round3(p99), Round3(pmax)
	return q
}

// Round3 rounds seconds to the millisecond, the precision every reported figure has.
func Round3(v float64) float64 { return math.Round(v*1000) / 1000 }

func ptr(v float64) *float64 { r := Round3(v); return &r }

package measure

import (
	"math"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

// Output is what Run returns: the summary, the per-change list and the time series.
type Output struct {
	Summary    results.Summary
	Changes    []results.Change
	Timeseries []results.Sample // Strategy left empty; the caller sets it
	// Restart is the first restart's steps (nil without a restart); Restarts every restart's, in order.
	Restart  *results.RestartPhases
	Restarts []results.RestartPhases
	// Unapplied are the changes AWS did not show by the run's end (see latency).
	Unapplied []results.UnappliedChange
}

// summary is one measurement's own result (as clusterloader2's measurements return theirs): it
// adds its figures to the run's Output, touching no other measurement's.
type summary interface{ addTo(out *Output) }

// Run applies every measurement to in. A measurement that needs another's result takes it as a
// parameter, never reads it from the Output; the summaries are added in the order the per-change
// list (changes, then drifts) and the time series (memory, then calls and samples) are reported in.
func Run(in *Input) *Output {
	changes := measureChangeLatency(in)
	first := measureTTFMR(in)
	phases := measureRestartPhases(in, first)
	out := &Output{}
	for _, s := range []summary{
		changes,
		first,
		measureBlindTime(in, changes.applied),
		phases,
		measureLeaseSplit(in, phases.first(), changes.applied),
		measureAWSCalls(in, first.at),
		measureBlindCosts(in, first.at),
		measureRestartWork(in, first.at),
		measureMemory(in, phases.first()),
		measureK8sWrites(in),
		measureAPILoad(in),
		measureGateFlips(in),
		measureDriftRepair(in),
		measureSteadyState(in),
		measureSeries(in),
		measureMachine(in),
	} {
		s.addTo(out)
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

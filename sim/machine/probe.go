package machine

import (
	"math"
	"time"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/results"
)

// delays summarises the probe's wake-up delays, in milliseconds to the microsecond: the median as
// every figure's (stats.Median), p99 and maximum by nearest rank.
func delays(d []time.Duration) results.DelayQuantiles {
	if len(d) == 0 {
		return results.DelayQuantiles{}
	}
	ms := make([]float64, len(d))
	for i, v := range d {
		ms[i] = float64(v) / 1e6
	}
	round := func(v float64) float64 { return math.Round(v*1e3) / 1e3 } // to the microsecond
	return results.DelayQuantiles{Count: len(d), P50: round(stats.Median(ms)), P99: round(stats.Quantile(ms, 0.99)),
		Max: round(stats.Quantile(ms, 1))}
}

// lateness is how much later than asked a sleep of want that took got ended (never negative).
func lateness(want, got time.Duration) time.Duration { return max(0, got-want) }

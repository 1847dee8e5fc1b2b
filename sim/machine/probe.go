package machine

import (
	"math"
	"sort"
	"time"

	"github.com/restartsim/restartsim/reports/results"
)

// delays summarises the probe's wake-up delays (nearest rank), in milliseconds to the microsecond.
func delays(d []time.Duration) results.DelayQuantiles {
	if len(d) == 0 {
		return results.DelayQuantiles{}
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	ms := func(v time.Duration) float64 { return math.Round(float64(v)/1e3) / 1e3 }
	q := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return ms(s[max(0, min(i, len(s)-1))])
	}
	return results.DelayQuantiles{Count: len(s), P50: q(0.50), P99: q(0.99), Max: ms(s[len(s)-1])}
}

// lateness is how much later than asked a sleep of want that took got ended (never negative).
func lateness(want, got time.Duration) time.Duration { return max(0, got-want) }

package predict

import (
	"math"

	"github.com/restartsim/restartsim/predict/queue"
)

// calibratePace scales every kind's pace by the one factor, from a tenth to about three times, with
// which the model run at the fleet's own size turns away as many calls as AWS did; of factors that
// match equally well, the one closest to 1. The calm gaps see the pace only between calls that found
// tokens to spare, which in a throttled re-read are few and skewed by the reconciles the restart's
// changes add (a hundred changes doubled the pace read at 1,000 TGBs). How many calls a throttled
// re-read turns away depends on how soon the workers come back for tokens, so the run's own count
// pins the pace. A run AWS never throttled keeps the pace it showed.
func (m *Model) calibratePace() error {
	m.PaceScale = 1
	if m.Throttled == 0 {
		return nil
	}
	base := make([]float64, len(m.Kinds))
	for i, k := range m.Kinds {
		base[i] = k.Pace
	}
	setPaces := func(scale float64) {
		for i := range m.Kinds {
			m.Kinds[i].Pace = base[i] * scale
		}
	}
	miss, atOne := math.Inf(1), 0
	for step := -20; step <= 10; step++ {
		scale := math.Pow(10, float64(step)/20)
		setPaces(scale)
		res, err := queue.Simulate(m.queueKinds(m.Fleet), m.Buckets)
		if err != nil {
			return err
		}
		n := 0
		for _, t := range res.Throttled {
			n += t
		}
		if step == 0 {
			atOne = n
		}
		d := math.Abs(float64(n - m.Throttled))
		if d < miss || (d == miss && math.Abs(math.Log(scale)) < math.Abs(math.Log(m.PaceScale))) {
			miss, m.PaceScale, m.ModelThrottled = d, scale, n
		}
	}
	if miss > max(3, float64(m.Throttled)/4) {
		// No pace makes the run's throttling (LBC's registrations at 4/s, which the controller spaces
		// out in ways the queue does not): the count says nothing about the pace, which stays as seen.
		m.PaceScale, m.ModelThrottled = 1, atOne
	}
	setPaces(m.PaceScale)
	return nil
}

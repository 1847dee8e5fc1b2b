package predict

import "github.com/restartsim/restartsim/results"

// Forecasts fits the run and forecasts it at each size, in results' terms: a run the model does not
// explain gets, for each size, the reason instead of figures.
func Forecasts(run *Run, sizes []int, orders int, seed uint64) []results.Forecast {
	refuse := func(err error) []results.Forecast {
		out := make([]results.Forecast, len(sizes))
		for i, n := range sizes {
			out[i] = results.Forecast{Size: n, Refused: err.Error()}
		}
		return out
	}
	m, err := Fit(run)
	if err == nil {
		_, err = m.Explain()
	}
	if err != nil {
		return refuse(err)
	}
	out := make([]results.Forecast, 0, len(sizes))
	for _, n := range sizes {
		f, err := m.Forecast(n, orders, seed)
		if err != nil {
			out = append(out, results.Forecast{Size: n, Refused: err.Error()})
			continue
		}
		steady := f.Steady
		r := results.Forecast{Size: n, SteadyStateSeconds: &steady}
		if len(m.Changes) > 0 {
			r.BlindP50, r.BlindP95, r.TTFMR = f.BlindP50.results(), f.BlindP95.results(), f.TTFMR.results()
		}
		out = append(out, r)
	}
	return out
}

func (s Spread) results() *results.Spread {
	return &results.Spread{Median: s.Median, Low: s.Low, High: s.High}
}

package sim

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/restartsim/restartsim/predict"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// forecastOrders is how many random queue orders a forecast draws, and forecastSeed its seed.
const (
	forecastOrders = 400
	forecastSeed   = 1
)

// forecast fills each strategy's forecasts when the scenario's predict section asks for them: the
// restart-queue model fitted on the strategy's call log, at each of the sizes.
func forecast(sc *scenario.Scenario, dir string, res *results.Results) {
	if sc.Predict == nil {
		return
	}
	for i := range res.Strategies {
		st := &res.Strategies[i]
		refuse := func(why string) {
			for _, n := range sc.Predict.Sizes {
				st.Forecasts = append(st.Forecasts, results.Forecast{Size: n, Refused: why})
			}
		}
		if rounds(sc) > 1 {
			refuse(fmt.Sprintf("a forecast fits one run, and the scenario repeats each strategy %d times", rounds(sc)))
			continue
		}
		calls, err := predict.ReadCallLog(filepath.Join(dir, st.Name, "aws-calls.jsonl"))
		if err != nil {
			refuse(err.Error())
			continue
		}
		run := &predict.Run{Results: res, Strategy: st, Calls: calls}
		st.Forecasts = predict.Forecasts(run, sc.Predict.Sizes, forecastOrders, forecastSeed)
	}
}

// printForecasts writes the forecasts, one line per strategy and size, or why there are none.
func printForecasts(w io.Writer, res *results.Results) {
	for _, st := range res.Strategies {
		for _, f := range st.Forecasts {
			switch {
			case f.Refused != "":
				fmt.Fprintf(w, "forecast %s at %d: none: %s\n", st.Name, f.Size, f.Refused)
			case f.BlindP50 != nil:
				fmt.Fprintf(w, "forecast %s at %d: blind p50 %s, p95 %s, TTFMR %s, steady %s\n", st.Name, f.Size,
					spreadCell(f.BlindP50), spreadCell(f.BlindP95), spreadCell(f.TTFMR), fmtSec(f.SteadyStateSeconds))
			default:
				fmt.Fprintf(w, "forecast %s at %d: steady %s\n", st.Name, f.Size, fmtSec(f.SteadyStateSeconds))
			}
		}
	}
}

func spreadCell(s *results.Spread) string {
	return fmt.Sprintf("%.1fs [%.1f, %.1f]", s.Median, s.Low, s.High)
}

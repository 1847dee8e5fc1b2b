package sim

import (
	"fmt"
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

package app

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/restartsim/restartsim/predict"
	"github.com/restartsim/restartsim/results"
)

// forecastOrders is how many random queue orders a sweep's forecast draws.
const forecastOrders = 400

// forecastSweep fits the restart-queue model on each strategy of the sweep's smallest size and
// forecasts the larger sizes, so figure 5 shows measured and predicted side by side; a strategy the
// model does not explain is named with the reason and gets no forecast.
func forecastSweep(w io.Writer, rows []sweepRow) {
	if len(rows) < 2 || rows[0].dir == "" {
		return
	}
	path := filepath.Join(rows[0].dir, "results.json")
	res, err := results.Load(path)
	if err != nil {
		fmt.Fprintf(w, "forecast: %v\n", err)
		return
	}
	for _, st := range res.Strategies {
		run, err := predict.Load(path, st.Name)
		if err != nil {
			fmt.Fprintf(w, "forecast of %s: %v\n", st.Name, err)
			continue
		}
		m, err := predict.Fit(run)
		if err == nil {
			_, err = m.Explain()
		}
		if err != nil {
			fmt.Fprintf(w, "forecast of %s from %d TGBs: none: %v\n", st.Name, rows[0].size, err)
			continue
		}
		for i := range rows {
			f, err := m.Forecast(rows[i].size, forecastOrders, 1)
			if err != nil {
				fmt.Fprintf(w, "forecast of %s at %d TGBs: %v\n", st.Name, rows[i].size, err)
				continue
			}
			if rows[i].predicted == nil {
				rows[i].predicted = map[string]float64{}
			}
			rows[i].predicted[st.Name] = f.TTFMR.Median
			fmt.Fprintf(w, "forecast of %s from %d TGBs at %d: TTFMR %s, blind p50 %s, steady state %.1f s\n",
				st.Name, rows[0].size, rows[i].size, f.TTFMR, f.BlindP50, f.Steady)
		}
	}
}

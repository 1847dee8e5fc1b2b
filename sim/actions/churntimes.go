package actions

import "github.com/restartsim/restartsim/results"

// churnTimes lists when each churn step began: blind time counts the changes up to the second one
// after a restart.
func churnTimes(events []results.Event) []float64 {
	var out []float64
	for _, e := range events {
		if e.Kind == "churn" {
			out = append(out, e.AtSeconds)
		}
	}
	return out
}

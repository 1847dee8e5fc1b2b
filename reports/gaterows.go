package reports

import (
	"math"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// verdictNeedsBaseline marks a gate rule that only `restartsim gate` with a baseline can judge.
const verdictNeedsBaseline = "needs a baseline (restartsim gate --baseline)"

// gateRow is one CI gate rule with its value in this run, its limit and verdict.
type gateRow struct {
	Rule, Value, Limit, Verdict string
	Failed                      bool
}

// gateRows judges the scenario's gate rules on this run alone: absolute limits get a verdict,
// limits relative to a baseline are shown as such.
func gateRows(r *results.Results) []gateRow {
	if len(r.Gate) == 0 {
		return nil
	}
	only := *r
	only.AB = nil // the A/B comparison is judged by restartsim gate, from its own runs
	rep, err := gate.Evaluate(&only, nil)
	if rep == nil {
		row := gateRow{Rule: "gate rules", Verdict: "not evaluated: " + err.Error(), Failed: true}
		return []gateRow{row}
	}
	var rows []gateRow
	for _, c := range rep.Checks {
		row := gateRow{Rule: describeRule(c.Rule), Value: fmtValue(c.Current), Limit: "–", Verdict: string(c.Verdict),
			Failed: c.Verdict == gate.Fail}
		switch {
		case !math.IsInf(c.Limit, 1):
			row.Limit = "≤ " + fmtValue(c.Limit)
			if c.Rule.MaxRegression != nil {
				row.Limit += ", and the baseline's limit"
			}
		default:
			row.Verdict = verdictNeedsBaseline
		}
		if c.Reason != "" {
			row.Verdict += ": " + c.Reason
		}
		rows = append(rows, row)
	}
	return rows
}

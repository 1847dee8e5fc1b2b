package reports

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// abView is the report's A/B section: both builds, the order the runs were made in and the
// verdict table `restartsim gate` judges from the same results.
type abView struct {
	Sides   []abSide // baseline, then candidate
	Repeats int
	Order   string
	Alpha   float64
	Rows    []abRow
	// Verdict, Reason and Advice are the comparison's (pass, FAIL, INCONCLUSIVE); Runs the runs
	// per side judged and Looks how many looks the gate took; Notes say why weights were lowered.
	Verdict, Reason, Advice string
	Runs, Looks             int
	Notes                   []string
	// Error is why the comparison could not be judged (e.g. too few runs); Rows is empty then.
	Error   string
	Summary template.HTML
	// Machines is each run's machine, in run order; ProbeInterval and SaturationRule explain it.
	Machines       []abMachineRow
	ProbeInterval  string
	SaturationRule string
}

type abSide struct{ Side, Strategy, Binary, Args, Version, SHA256 string }

func newABSide(side, strategy string, b results.Build) abSide {
	return abSide{Side: side, Strategy: strategy, Binary: b.Binary, Args: strings.Join(b.Args, " "), Version: b.Version, SHA256: b.SHA256}
}

type abRow struct {
	Metric, Weight, Baseline, Candidate, Ratio, Diff, P, Limit, Verdict string
	Failed, Improved, Inconclusive, Skipped                             bool
}

func newABView(r *results.Results) *abView {
	ab := r.AB
	if ab == nil {
		return nil
	}
	v := &abView{Repeats: ab.Repeats, Alpha: ab.Alpha, Order: runOrder(ab), Sides: []abSide{
		newABSide("baseline", ab.Baseline, ab.BaselineBuild), newABSide("candidate", ab.Candidate, ab.CandidateBuild)}}
	v.addMachines(r)
	out, err := gate.EvaluateAB(r)
	if err != nil {
		v.Error = err.Error()
		return v
	}
	v.Verdict, v.Reason, v.Advice, v.Runs, v.Looks = string(out.Verdict), out.Reason, out.Advice, out.Runs, out.Look+1
	var failed, improved, tested []string
	for _, c := range out.Checks {
		row := abRow{Metric: c.Metric.Metric, Weight: fmtValue(c.Metric.AlphaWeight()), Skipped: c.Skipped, Verdict: string(c.Verdict)}
		if !c.Skipped && c.Weight < c.Metric.AlphaWeight() {
			row.Weight = fmt.Sprintf("%s (of %s)", fmtValue(c.Weight), fmtValue(c.Metric.AlphaWeight()))
			v.Notes = append(v.Notes, fmt.Sprintf("%s weighs %s instead of %s: its spread within each side at the first look allows %.0f %% of the resolution its minimum effect needs within the plan's runs", c.Metric.Metric, fmtValue(c.Weight), fmtValue(c.Metric.AlphaWeight()), c.Resolution*100))
		}
		if c.Skipped {
			row.Verdict = "skipped: " + c.Reason
			v.Rows = append(v.Rows, row)
			continue
		}
		tested = append(tested, c.Metric.Metric)
		row.Baseline, row.Candidate, row.Ratio = c.BaselineMedian.String(), c.CandidateMedian.String(), "×"+c.Ratio.String()
		row.Diff = fmt.Sprintf("%+.3g [%+.3g, %+.3g]", c.Diff.Center, c.Diff.Lo, c.Diff.Hi)
		row.P, row.Limit = fmt.Sprintf("%.2g ≤ %.2g", c.P, c.Level), fmtValue(c.Limit())
		row.Failed, row.Improved, row.Inconclusive = c.Verdict == gate.Fail, c.Verdict == gate.Improved, c.Verdict == gate.Inconclusive
		if c.Reason != "" {
			row.Verdict += ": " + c.Reason
		}
		switch {
		case row.Failed:
			failed = append(failed, c.Metric.Metric)
		case row.Improved:
			improved = append(improved, c.Metric.Metric)
		}
		v.Rows = append(v.Rows, row)
	}
	v.Summary = abSummary(out, tested, failed, improved)
	return v
}

// runOrder is the order the runs were made in, as B (baseline) and C (candidate).
func runOrder(ab *results.AB) string {
	var b strings.Builder
	for _, name := range ab.Order {
		switch name {
		case ab.Baseline:
			b.WriteString("B")
		case ab.Candidate:
			b.WriteString("C")
		default:
			b.WriteString("?")
		}
	}
	return b.String()
}

func abSummary(out *gate.ABOutcome, tested, failed, improved []string) template.HTML {
	esc := func(names []string) string { return template.HTMLEscapeString(strings.Join(names, ", ")) }
	var b strings.Builder
	switch {
	case out.Verdict == gate.Inconclusive:
		fmt.Fprintf(&b, `<span class="fail">INCONCLUSIVE</span> after %d + %d runs: %s. What to do: %s`, out.Runs, out.Runs,
			template.HTMLEscapeString(out.Reason), template.HTMLEscapeString(out.Advice))
	case len(failed) == 0:
		fmt.Fprintf(&b, `<span class="pass">The candidate passed</span> on all %d compared metrics after %d + %d runs`, len(tested), out.Runs, out.Runs)
	default:
		fmt.Fprintf(&b, `<span class="fail">The candidate regressed</span> on %d of %d compared metrics: <b>%s</b>`, len(failed), len(tested), esc(failed))
	}
	if len(improved) > 0 {
		fmt.Fprintf(&b, "; it improved significantly on %s", esc(improved))
	}
	b.WriteString(".")
	return template.HTML(b.String())
}

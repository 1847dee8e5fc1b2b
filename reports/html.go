package reports

import (
	"bytes"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/results"
)

//go:embed report.html.tmpl
var pageTemplate string

var tmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"mib":        func(b int64) float64 { return float64(b) / (1 << 20) },
	"keepValues": keepValues,
}).Parse(pageTemplate))

// maxViolationRows caps the invariant violations listed per strategy.
const maxViolationRows = 50

// page is the prepared content of report.html.
type page struct {
	R          *results.Results
	Strategies []strategyRow
	Thresholds []thresholdRow
	Figures    []figureView
	Skipped    []Skipped
	Invariants []invariantView
	Gate       []gateRow
	Verdict    template.HTML
	Breakdown  []breakdownRow
	Steps      []string
	Changes    []changeTable
	AB         *abView
	Standby    []standbyRow
	Memory     []memoryRow
	// ABFigure is drawn in the A/B section rather than among the figures.
	ABFigure *figureView
}

type strategyRow struct {
	Name, Config                                   string
	Blind, TTFMR, P50, P95, Max, SteadyState       string
	CallsBefore, ThrottledBefore, Calls, Throttled int
	K8sWrites, CheckpointPatches                   int
	InvariantsPassed, ThresholdsPassed             bool
}

type thresholdRow struct {
	Strategy, Metric string
	Value, Limit     string
	Passed           bool
}

type figureView struct {
	Figure
	// Src is the whole src attribute: base64 is attribute-safe, and html/template would
	// otherwise entity-escape every '+' and swell the file.
	Src template.HTMLAttr
}

type invariantView struct {
	Strategy string
	Passed   bool
	// Counts says what the check found, in the words of each kind (results.Invariants.Describe).
	Counts     string
	Violations []results.Violation
	More       int
}

func newPage(r *results.Results, files Files) page {
	pg := page{R: r, Skipped: files.Skipped, Gate: gateRows(r), Breakdown: breakdownRows(r), Steps: breakdownSteps,
		Changes: changeTables(r), AB: newABView(r), Standby: standbyRows(r), Memory: memoryRows(r)}
	pg.Verdict = verdict(r, pg.Gate, pg.AB)
	for _, s := range r.Strategies {
		row := strategyRow{
			Name: s.Name, Config: formatConfig(s.Config), Blind: blindCell(s.Summary),
			TTFMR: optSeconds(s.Summary.TTFMRSeconds), SteadyState: optSeconds(s.Summary.SteadyStateSeconds),
			P50: "–", P95: "–", Max: "–",
			CallsBefore: total(s.Summary.AWSCallsBeforeFirstMeaningful), ThrottledBefore: s.Summary.ThrottledBeforeFirstMeaningful,
			Calls: total(s.Summary.AWSCalls), Throttled: s.Summary.Throttled,
			K8sWrites: s.Summary.K8sWrites.Total(), CheckpointPatches: s.Summary.K8sWrites.CheckpointPatches,
			InvariantsPassed: s.Invariants.Passed, ThresholdsPassed: true,
		}
		if q := s.Summary.ChangeLatency; q.Count > 0 {
			row.P50, row.P95, row.Max = fmtBound(q.P50, q.P50Censored), fmtBound(q.P95, q.P95Censored), fmtBound(q.Max, q.MaxCensored)
		}
		for _, t := range s.Thresholds {
			row.ThresholdsPassed = row.ThresholdsPassed && t.Passed
			pg.Thresholds = append(pg.Thresholds, thresholdRow{Strategy: s.Name, Metric: t.Metric,
				Value: fmtValue(t.Value), Limit: fmtValue(t.Limit), Passed: t.Passed})
		}
		pg.Strategies = append(pg.Strategies, row)
		iv := invariantView{Strategy: s.Name, Passed: s.Invariants.Passed, Counts: s.Invariants.Describe(), Violations: s.Invariants.Violations}
		if n := len(iv.Violations); n > maxViolationRows {
			iv.Violations, iv.More = iv.Violations[:maxViolationRows], n-maxViolationRows
		}
		pg.Invariants = append(pg.Invariants, iv)
	}
	for _, f := range files.Figures {
		src := `src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(f.png) + `"`
		fv := figureView{Figure: f, Src: template.HTMLAttr(src)}
		if f.ID == FigureABRuns && pg.AB != nil {
			pg.ABFigure = &fv
			continue
		}
		pg.Figures = append(pg.Figures, fv)
	}
	return pg
}

func writeHTML(fsys outfile.FS, path string, pg page) error {
	var b bytes.Buffer
	if err := tmpl.Execute(&b, pg); err != nil {
		return fmt.Errorf("render %s: %w", path, err)
	}
	return outfile.WriteBytes(fsys, path, b.Bytes())
}

func describeRule(g results.GateRule) string {
	metric := g.Metric
	if g.RelativeTo != "" {
		metric = fmt.Sprintf("%s ÷ %s of %s", g.Metric, g.Metric, g.RelativeTo)
	}
	var parts []string
	if g.Max != nil {
		parts = append(parts, "≤ "+fmtValue(*g.Max))
	}
	if g.MaxRegression != nil {
		p := fmt.Sprintf("at most +%.0f%% over baseline", *g.MaxRegression*100)
		if g.Slack != 0 {
			p += " + " + fmtValue(g.Slack)
		}
		parts = append(parts, p)
	}
	return fmt.Sprintf("%s: %s %s", g.Strategy, metric, strings.Join(parts, ", "))
}

func formatConfig(c map[string]string) string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + c[k]
	}
	return strings.Join(parts, " ")
}

func total(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func optSeconds(v *float64) string {
	if v == nil {
		return "never"
	}
	return fmtSeconds(*v)
}

func fmtSeconds(v float64) string { return fmtValue(v) + " s" }

func fmtValue(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return fmt.Sprintf("%d", int64(v))
	}
	return fmt.Sprintf("%.4g", v)
}

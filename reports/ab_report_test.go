package reports_test

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/internal/stats"
	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/reports/internal/chart"
	"github.com/restartsim/restartsim/reports/internal/dataset"
	"github.com/restartsim/restartsim/results"
)

// abResults is an A/B run of n runs per side in the order B C C B …: the candidate's TTFMR is
// the baseline's times factor, change latency is alike on both sides, and CPU is not measured.
// The candidate's run neverAt (when ≥ 0) never reached a meaningful mutation.
func abResults(n int, factor float64, neverAt int) *results.Results {
	r := &results.Results{SchemaVersion: results.SchemaVersion,
		Scenario: results.Scenario{Name: "ab", TGBs: 200, TimeScale: 5},
		AB: &results.AB{Strategy: "checkpoint", Baseline: "checkpoint-baseline", Candidate: "checkpoint", Repeats: n, Alpha: 0.05,
			Metrics: []results.ABMetric{
				{Metric: results.MetricTTFMR, MinEffect: 0.2, MinDelta: 0.1},
				{Metric: results.MetricChangeLatencyP50, MinEffect: 0.2, MinDelta: 0.1},
				{Metric: results.MetricControllerCPUBeforeFirst, MinEffect: 0.2},
			},
			BaselineBuild:  results.Build{Binary: "bin/base/restartsim", Version: "restartsim base"},
			CandidateBuild: results.Build{Binary: "bin/restartsim", Args: []string{"--mutant=slow-start"}}},
	}
	side := func(name string, f float64, never int) results.Strategy {
		s := results.Strategy{Name: name}
		for i := range n {
			// Spread like a noisy machine, identical on both sides but for the factor.
			ttfmr := (1.5 + 0.05*float64(i%4) - 0.03*float64(i%3)) * f
			sum := results.Summary{TTFMRSeconds: &ttfmr,
				ChangeLatency: results.Quantiles{Count: 5, P50: 0.9 + 0.02*float64(i%5), P95: 1.2, Max: 1.3}}
			if i == never {
				sum.TTFMRSeconds = nil
			}
			s.Runs = append(s.Runs, sum)
		}
		s.Summary = s.Runs[n/2]
		return s
	}
	r.Strategies = []results.Strategy{side("checkpoint-baseline", 1, -1), side("checkpoint", factor, neverAt)}
	for i := range n {
		if i%2 == 0 {
			r.AB.Order = append(r.AB.Order, "checkpoint-baseline", "checkpoint")
		} else {
			r.AB.Order = append(r.AB.Order, "checkpoint", "checkpoint-baseline")
		}
	}
	return r
}

func renderHTML(t *testing.T, r *results.Results) (reports.Files, string) {
	t.Helper()
	files, err := reports.Render(r, nil, outDir(t))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(files.HTML)
	if err != nil {
		t.Fatal(err)
	}
	return files, string(html)
}

// abRow is the A/B table's row of a metric, tags stripped.
func abRow(t *testing.T, html, metric string) string {
	t.Helper()
	table := html[strings.Index(html, `id="ab-checks"`):]
	table = table[:strings.Index(table, "</table>")]
	for _, row := range strings.Split(table, "<tr>") {
		if strings.Contains(row, "<code>"+metric+"</code>") {
			return regexp.MustCompile(`<[^>]+>`).ReplaceAllString(row, " ")
		}
	}
	t.Fatalf("no A/B row for %s", metric)
	return ""
}

func TestReportShowsABRegression(t *testing.T) {
	files, html := renderHTML(t, abResults(8, 2, -1))
	row := abRow(t, html, results.MetricTTFMR)
	// 8 + 8 runs completely separated: p = 2 ÷ C(16, 8) = 0.000155, against its level.
	for _, want := range []string{"FAIL", "×2 ", "0.00016 ≤"} {
		if !strings.Contains(row, want) {
			t.Errorf("TTFMR row %q lacks %q", row, want)
		}
	}
	if row := abRow(t, html, results.MetricChangeLatencyP50); !strings.Contains(row, "pass") || strings.Contains(row, "FAIL") {
		t.Errorf("change latency, alike on both sides, should pass: %q", row)
	}
	if row := abRow(t, html, results.MetricControllerCPUBeforeFirst); !strings.Contains(row, "skipped") {
		t.Errorf("CPU, measured by neither side, should be skipped: %q", row)
	}
	verdict := html[strings.Index(html, `id="verdict"`):]
	verdict = verdict[:strings.Index(verdict, "</p>")]
	if !strings.Contains(verdict, "regressed") || !strings.Contains(verdict, results.MetricTTFMR) {
		t.Errorf("the opening paragraph does not name the regression: %q", verdict)
	}
	for _, want := range []string{"<code>BCCBBCCBBCCBBCCB</code>", "bin/base/restartsim", "--mutant=slow-start", "restartsim base"} {
		if !strings.Contains(html, want) {
			t.Errorf("A/B section lacks %q", want)
		}
	}
	// The A/B figure: drawn inside the A/B section, one panel per metric a side measured.
	var fig *reports.Figure
	for i := range files.Figures {
		if files.Figures[i].ID == reports.FigureABRuns {
			fig = &files.Figures[i]
		}
	}
	if fig == nil {
		t.Fatalf("no %s figure among %v", reports.FigureABRuns, files.Figures)
	}
	data, err := os.ReadFile(fig.Path)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if w, h := chart.ABRunsSize(2); cfg.Width != w || cfg.Height != h {
		t.Errorf("figure %dx%d, want %dx%d (two panels)", cfg.Width, cfg.Height, w, h)
	}
	section := html[strings.Index(html, `id="ab-comparison"`):]
	section = section[:strings.Index(section, "</section>")]
	if !strings.Contains(section, `data-file="ab-runs.png"`) {
		t.Error("the A/B figure is not in the A/B section")
	}
	if strings.Count(html, `data-file="ab-runs.png"`) != 1 {
		t.Error("the A/B figure is drawn more than once")
	}
}

func TestReportABSameBuildPasses(t *testing.T) {
	_, html := renderHTML(t, abResults(8, 1, -1))
	if row := abRow(t, html, results.MetricTTFMR); !strings.Contains(row, "pass") || !strings.Contains(row, "×1 ") {
		t.Errorf("TTFMR row of an A/A run: %q", row)
	}
	if !strings.Contains(html, "The candidate passed</span> on all 2 compared metrics") {
		t.Error("A/A verdict missing")
	}
}

func TestReportABTooFewRuns(t *testing.T) {
	files, html := renderHTML(t, abResults(3, 2, -1))
	if !strings.Contains(html, "INCONCLUSIVE</span> after 3 + 3 runs") || !strings.Contains(html, "too few runs") || !strings.Contains(html, "What to do:") {
		t.Error("a comparison the test cannot judge should say it is inconclusive, why, and what to do")
	}
	if row := abRow(t, html, results.MetricTTFMR); !strings.Contains(row, "INCONCLUSIVE") {
		t.Errorf("TTFMR row %q, want INCONCLUSIVE", row)
	}
	if len(files.Figures) == 0 || files.Figures[len(files.Figures)-1].ID != reports.FigureABRuns {
		t.Error("the runs are still worth plotting when they cannot be judged")
	}
}

func TestReportWithoutABHasNoABSection(t *testing.T) {
	r, ts := loadGolden(t)
	files, err := reports.Render(r, ts, outDir(t))
	if err != nil {
		t.Fatal(err)
	}
	html, _ := os.ReadFile(files.HTML)
	if bytes.Contains(html, []byte("ab-comparison")) || bytes.Contains(html, []byte("ab-runs")) {
		t.Error("a run without an A/B comparison shows one")
	}
}

func TestABRunsPlotsEveryRunInOrder(t *testing.T) {
	r := abResults(8, 2, 3)
	d, ok := dataset.NewABRuns(r)
	if !ok {
		t.Fatal("no A/B figure for an A/B run")
	}
	if d.Runs != 16 || len(d.Panels) != 2 {
		t.Fatalf("runs %d, panels %d; want 16 runs and the two measured metrics", d.Runs, len(d.Panels))
	}
	p := d.Panels[0]
	if p.Metric != results.MetricTTFMR || len(p.Baseline) != 8 || len(p.Candidate) != 7 || p.CandidateMissing != 1 {
		t.Fatalf("TTFMR panel: %d baseline, %d candidate points, %d missing", len(p.Baseline), len(p.Candidate), p.CandidateMissing)
	}
	// Each point sits at its run's place in the order, with the run's value.
	cand, _ := r.Strategy("checkpoint")
	var wantX []float64
	for i, o := range r.AB.Order {
		if o == "checkpoint" {
			wantX = append(wantX, float64(i+1))
		}
	}
	k := 0
	for i, run := range cand.Runs {
		if run.TTFMRSeconds == nil {
			continue
		}
		if pt := p.Candidate[k]; pt.X != wantX[i] || pt.Y != *run.TTFMRSeconds {
			t.Errorf("candidate run %d at (%g, %g), want (%g, %g)", i, pt.X, pt.Y, wantX[i], *run.TTFMRSeconds)
		}
		k++
	}
	// The medians are the gate's: a missing run ranks after every measured one.
	values := func(pts dataset.Points, missing int) []float64 {
		var v []float64
		for _, pt := range pts {
			v = append(v, pt.Y)
		}
		for range missing {
			v = append(v, stats.Missing)
		}
		return v
	}
	if got, want := p.BaselineMedian, stats.Median(values(p.Baseline, 0)); math.Abs(got-want) > 1e-12 {
		t.Errorf("baseline median %g, want %g", got, want)
	}
	cvals := values(p.Candidate, 1)
	slices.Sort(cvals)
	if got, want := p.CandidateMedian, (cvals[3]+cvals[4])/2; math.Abs(got-want) > 1e-12 {
		t.Errorf("candidate median %g with one of 8 runs missing, want %g: the 4th and 5th of the 7 measured", got, want)
	}
	if _, ok := dataset.NewABRuns(&results.Results{}); ok {
		t.Error("an A/B figure for a run without a comparison")
	}
}

package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/internal/outfile/outfiletest"
	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/reports/results"
)

// maxFigurePixels bounds every figure whatever the input: the tallest is the event timeline of
// MaxDrawnStrategies panels with 25 lanes each (1400 × 7360 pixels).
const maxFigurePixels = 1400 * 8000

// FuzzRenderResults: whatever a results.json holds, it is refused by the reader or rendered,
// PNGs and HTML, into figures of bounded size; it never panics, hangs or fails to draw. Seeds: the
// golden results, an A/B comparison, figures at their bounds; testdata/fuzz/FuzzRenderResults
// holds what fuzzing found.
func FuzzRenderResults(f *testing.F) {
	golden, err := os.ReadFile(goldenResults)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(golden)
	for _, r := range []*results.Results{abSeed(f), boundsSeed(f)} {
		data, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	ts := shortTimeseries(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := results.Decode(data, "fuzz.json")
		if err != nil {
			return
		}
		renderBounded(t, r, ts)
	})
}

// FuzzRenderTimeseries: whatever a timeseries.csv holds, it is refused by the reader or rendered
// beside the golden results. Seeds: the start of the golden series, samples at the bounds, many
// operations; testdata/fuzz/FuzzRenderTimeseries holds what fuzzing found.
func FuzzRenderTimeseries(f *testing.F) {
	r, err := results.Load(goldenResults)
	if err != nil {
		f.Fatal(err)
	}
	var head bytes.Buffer
	if err := results.WriteCSV(&head, shortTimeseries(f)); err != nil {
		f.Fatal(err)
	}
	f.Add(head.Bytes())
	f.Add([]byte("strategy,second,series,value\n"))
	f.Add([]byte(fmt.Sprintf("strategy,second,series,value\ncheckpoint,0,workqueue_depth,3\ncheckpoint,%d,aws_calls:RegisterTargets,%g\n",
		results.MaxSeconds, float64(results.MaxCount))))
	var ops strings.Builder
	ops.WriteString("strategy,second,series,value\n")
	for i := range 40 {
		fmt.Fprintf(&ops, "no-checkpoint,%d,aws_calls:Op%d,%d\nno-checkpoint,%d,aws_throttled:Op%d,1\n", i, i, i+1, i, i)
	}
	f.Add([]byte(ops.String()))
	f.Fuzz(func(t *testing.T, data []byte) {
		ts, err := results.ReadCSV(bytes.NewReader(data))
		if err != nil {
			return
		}
		renderBounded(t, r, ts)
	})
}

// renderBounded renders r and ts, writing nothing, and fails unless every figure was drawn within
// maxFigurePixels.
func renderBounded(t *testing.T, r *results.Results, ts []results.Sample) {
	t.Helper()
	files, err := reports.RenderTo(outfiletest.Discard{}, r, ts, t.TempDir())
	if err != nil {
		t.Fatalf("valid input not rendered: %v", err)
	}
	for _, fig := range files.Figures {
		if fig.Width*fig.Height > maxFigurePixels {
			t.Errorf("%s: %d × %d pixels", fig.ID, fig.Width, fig.Height)
		}
	}
}

// shortTimeseries is the first minute and a half of the golden time series: enough for every
// time-series figure, quick to draw.
func shortTimeseries(tb testing.TB) []results.Sample {
	all, err := results.LoadCSV(goldenTimeseries)
	if err != nil {
		tb.Fatal(err)
	}
	var out []results.Sample
	for _, s := range all {
		if s.Second < 90 {
			out = append(out, s)
		}
	}
	return out
}

// abSeed is the golden run as an A/B comparison of its two strategies, three runs each.
func abSeed(tb testing.TB) *results.Results {
	r, err := results.Load(goldenResults)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range r.Strategies {
		s := &r.Strategies[i]
		s.Runs = []results.Summary{s.Summary, s.Summary, s.Summary}
	}
	r.AB = &results.AB{Strategy: "checkpoint", Baseline: "no-checkpoint", Candidate: "checkpoint", Repeats: 3, Alpha: 0.05,
		Order:   []string{"no-checkpoint", "checkpoint", "checkpoint", "no-checkpoint", "no-checkpoint", "checkpoint"},
		Metrics: []results.ABMetric{{Metric: results.MetricTTFMR, MinEffect: 0.1}, {Metric: results.MetricK8sWrites, MinEffect: 0.2}}}
	return r
}

// boundsSeed has more strategies than the figures draw, and times at their bound.
func boundsSeed(tb testing.TB) *results.Results {
	r, err := results.Load(goldenResults)
	if err != nil {
		tb.Fatal(err)
	}
	for len(r.Strategies) <= reports.MaxDrawnStrategies {
		s := r.Strategies[len(r.Strategies)%2]
		s.Name = fmt.Sprint("s", len(r.Strategies))
		r.Strategies = append(r.Strategies, s)
	}
	last := &r.Strategies[len(r.Strategies)-1]
	last.Events = append(last.Events, results.Event{AtSeconds: results.MaxSeconds, Kind: "restart"})
	last.Changes = append([]results.Change(nil), last.Changes...)
	last.Changes[0].AtSeconds = results.MaxSeconds
	return r
}

package reports_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/internal/outfile/outfiletest"
	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/results"
)

// maxFigurePixels bounds every figure whatever the input: the tallest is the event timeline of
// MaxDrawnStrategies panels with 25 lanes each (1400 × 7360 pixels).
const maxFigurePixels = 1400 * 8000

// FuzzRenderResults: whatever a results.json holds, it is refused by the reader or rendered,
// PNGs and HTML, into figures of bounded size; it never panics, hangs or fails to draw. Seeds: the
// golden results with a few changes each (an instrumented render must stay well under the
// fuzzer's 10 s per input), an A/B comparison, times at their bound; testdata/fuzz/FuzzRenderResults holds what
// fuzzing found. TestRenderCapsDrawnStrategies covers more strategies than the figures draw.
func FuzzRenderResults(f *testing.F) {
	for _, r := range []*results.Results{smallGolden(f), abSeed(f), boundsSeed(f)} {
		data, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := results.Decode(data, "fuzz.json")
		if err != nil {
			return
		}
		renderBounded(t, r, nil) // FuzzRenderTimeseries draws the time series
	})
}

// FuzzRenderTimeseries: whatever a timeseries.csv holds, it is refused by the reader or rendered
// beside the golden results' strategies and events. Seeds: the start of the golden series, samples at the bounds, many
// operations; testdata/fuzz/FuzzRenderTimeseries holds what fuzzing found.
func FuzzRenderTimeseries(f *testing.F) {
	// Only the figures of the time series are drawn: no restart, change or sweep.
	r := smallGolden(f)
	for i := range r.Strategies {
		s := &r.Strategies[i]
		s.Restart, s.Restarts, s.Changes = nil, nil, nil
	}
	r.Sweep = nil
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

// smallGolden is the golden run with its first five changes per strategy.
func smallGolden(tb testing.TB) *results.Results {
	r, err := results.Load(goldenResults)
	if err != nil {
		tb.Fatal(err)
	}
	for i := range r.Strategies {
		r.Strategies[i].Changes = r.Strategies[i].Changes[:5]
	}
	return r
}

// abSeed is the small golden run as an A/B comparison of its two strategies, three runs each.
func abSeed(tb testing.TB) *results.Results {
	r := smallGolden(tb)
	for i := range r.Strategies {
		s := &r.Strategies[i]
		s.Runs = []results.Summary{s.Summary, s.Summary, s.Summary}
	}
	r.AB = &results.AB{Strategy: "checkpoint", Baseline: "no-checkpoint", Candidate: "checkpoint", Repeats: 3, Alpha: 0.05,
		Order:   []string{"no-checkpoint", "checkpoint", "checkpoint", "no-checkpoint", "no-checkpoint", "checkpoint"},
		Metrics: []results.ABMetric{{Metric: results.MetricTTFMR, MinEffect: 0.1}, {Metric: results.MetricK8sWrites, MinEffect: 0.2}}}
	return r
}

// boundsSeed is the small golden run with times at their bound.
func boundsSeed(tb testing.TB) *results.Results {
	r := smallGolden(tb)
	s := &r.Strategies[1]
	s.Events = append(s.Events, results.Event{AtSeconds: results.MaxSeconds, EndSeconds: results.MaxSeconds, Kind: "awsFault"})
	s.Changes[0].AtSeconds = results.MaxSeconds
	r.Sweep[0].TTFMRByStr["checkpoint"] = results.MaxSeconds
	return r
}

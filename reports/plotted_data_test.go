package reports_test

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/reports/internal/dataset"
	"github.com/restartsim/restartsim/results"
)

// TestPlottedSeriesComeFromInputs checks every plotted series against the committed
// results.json and timeseries.csv, computed here independently of package dataset: nothing is
// plotted that the inputs do not hold.
func TestPlottedSeriesComeFromInputs(t *testing.T) {
	r, ts := loadGolden(t)
	tl := dataset.NewTimeline(ts, dataset.MaxBins)
	if tl.BinSeconds != 2 { // 600 s of samples, at most 300 bins
		t.Fatalf("bin = %d s, want 2", tl.BinSeconds)
	}

	// Raw sums from the CSV: strategy → series → total, and the gauges per second.
	totals := map[string]map[string]float64{}
	gauges := map[string]map[string]map[int]float64{}
	for _, s := range ts {
		if totals[s.Strategy] == nil {
			totals[s.Strategy] = map[string]float64{}
			gauges[s.Strategy] = map[string]map[int]float64{}
		}
		totals[s.Strategy][s.Series] += s.Value
		if gauges[s.Strategy][s.Series] == nil {
			gauges[s.Strategy][s.Series] = map[int]float64{}
		}
		gauges[s.Strategy][s.Series][s.Second] = s.Value
	}

	t.Run("aws calls", func(t *testing.T) {
		calls := dataset.NewCallRates(r, tl)
		if len(calls.Panels) != len(r.Strategies) {
			t.Fatalf("%d panels for %d strategies", len(calls.Panels), len(r.Strategies))
		}
		for _, p := range calls.Panels {
			var opsInCSV []string
			for name := range totals[p.Strategy] {
				if op, ok := strings.CutPrefix(name, results.SeriesAWSCalls+":"); ok {
					opsInCSV = append(opsInCSV, op)
				}
			}
			if len(p.Calls) != len(opsInCSV) {
				t.Errorf("%s: %d operation lines, CSV has %d operations", p.Strategy, len(p.Calls), len(opsInCSV))
			}
			st, _ := r.Strategy(p.Strategy)
			for _, l := range p.Calls {
				want := totals[p.Strategy][results.SeriesAWSCalls+":"+l.Name]
				if got := integral(l.Points, calls.BinSeconds); !near(got, want) {
					t.Errorf("%s %s: plotted %g calls, CSV has %g", p.Strategy, l.Name, got, want)
				}
				// The CSV and the summary agree too, so the figure matches the table.
				if float64(st.Summary.AWSCalls[l.Name]) != want {
					t.Errorf("%s %s: summary %d calls, CSV %g", p.Strategy, l.Name, st.Summary.AWSCalls[l.Name], want)
				}
			}
			var wantThrottled float64
			for name, v := range totals[p.Strategy] {
				if strings.HasPrefix(name, results.SeriesAWSThrottled+":") {
					wantThrottled += v
				}
			}
			if got := integral(p.Throttled.Points, calls.BinSeconds); !near(got, wantThrottled) || wantThrottled != float64(st.Summary.Throttled) {
				t.Errorf("%s: plotted %g throttled, CSV %g, summary %d", p.Strategy, got, wantThrottled, st.Summary.Throttled)
			}
			if len(p.Markers) != 2 || p.Markers[0].At != 60 || p.Markers[0].Kind != dataset.MarkerRestart ||
				p.Markers[1].At != 300 || p.Markers[1].End != 330 || p.Markers[1].Kind != dataset.MarkerFault {
				t.Errorf("%s: markers %+v, want the restart at 60 s and the fault 300–330 s (churn not marked)", p.Strategy, p.Markers)
			}
		}
	})

	t.Run("queue depths", func(t *testing.T) {
		q := dataset.NewQueueDepths(r, tl)
		for _, c := range []struct {
			series string
			lines  []dataset.Line
		}{{results.SeriesQueueDepth, q.Work}, {results.SeriesDeferredDepth, q.Deferred}} {
			for _, l := range c.lines {
				raw := gauges[l.Name][c.series]
				for _, pt := range l.Points {
					start := int(math.Round(pt.X - float64(q.BinSeconds-1)/2))
					want := math.Max(raw[start], raw[start+1])
					if pt.Y != want {
						t.Fatalf("%s %s at %d s: plotted %g, CSV max %g", l.Name, c.series, start, pt.Y, want)
					}
				}
			}
		}
	})

	t.Run("latency cdf", func(t *testing.T) {
		cdf := dataset.NewLatencyCDF(r)
		for i, l := range cdf.Lines {
			st := r.Strategies[i]
			var lat []float64
			for _, c := range st.Changes {
				if c.LatencySeconds != nil {
					lat = append(lat, *c.LatencySeconds)
				}
			}
			sort.Float64s(lat)
			if l.Strategy != st.Name || len(l.Points) != len(lat)+1 || l.Changes != len(st.Changes) {
				t.Fatalf("%s: %d points for %d latencies of %d changes", l.Strategy, len(l.Points), len(lat), len(st.Changes))
			}
			for j, v := range lat {
				if p := l.Points[j+1]; p.X != v || p.Y != float64(j+1)/float64(len(st.Changes)) {
					t.Errorf("%s point %d = %+v, want (%g, %g)", l.Strategy, j, p, v, float64(j+1)/float64(len(st.Changes)))
				}
			}
			if l.TTFMR == nil || *l.TTFMR != *st.Summary.TTFMRSeconds {
				t.Errorf("%s: TTFMR marker %v, summary %v", l.Strategy, l.TTFMR, *st.Summary.TTFMRSeconds)
			}
		}
	})

	t.Run("bars", func(t *testing.T) {
		b := dataset.NewBars(r)
		for i, st := range r.Strategies {
			m := st.Summary.Metrics()
			if b.Strategies[i] != st.Name || b.CallsBeforeFirst[i] != m[results.MetricAWSCallsBeforeFirstMeaningful] ||
				b.K8sWrites[i] != m[results.MetricK8sWrites] {
				t.Errorf("%s: bars %g calls, %g writes; summary %g, %g", st.Name, b.CallsBeforeFirst[i], b.K8sWrites[i],
					m[results.MetricAWSCallsBeforeFirstMeaningful], m[results.MetricK8sWrites])
			}
		}
	})

	t.Run("sweep", func(t *testing.T) {
		s, ok := dataset.NewSweep(r)
		if !ok || len(s.Lines) != 2 {
			t.Fatalf("sweep lines %v, want one per strategy", s.Lines)
		}
		for _, l := range s.Lines {
			if len(l.Points) != len(r.Sweep) {
				t.Errorf("%s: %d points, sweep has %d sizes", l.Name, len(l.Points), len(r.Sweep))
			}
			for j, p := range l.Points {
				if sp := r.Sweep[j]; p.X != float64(sp.TGBs) || p.Y != sp.TTFMRByStr[l.Name] {
					t.Errorf("%s point %d = %+v, want (%d, %g)", l.Name, j, p, sp.TGBs, sp.TTFMRByStr[l.Name])
				}
			}
		}
		// A forecast for one strategy: its dotted line has the forecast's points, the other none.
		withForecast := *r
		withForecast.Sweep = append([]results.SweepPoint(nil), r.Sweep...)
		name := s.Lines[0].Name
		for j := range withForecast.Sweep {
			withForecast.Sweep[j].PredictedTTFMRByStr = map[string]float64{name: float64(10 * (j + 1))}
		}
		s, _ = dataset.NewSweep(&withForecast)
		if len(s.Predicted) != 2 || len(s.Predicted[0].Points) != len(r.Sweep) || len(s.Predicted[1].Points) != 0 {
			t.Fatalf("predicted lines %+v, want %d points for %s and none for the other", s.Predicted, len(r.Sweep), name)
		}
		for j, p := range s.Predicted[0].Points {
			if p.X != float64(r.Sweep[j].TGBs) || p.Y != float64(10*(j+1)) {
				t.Errorf("predicted point %d = %+v", j, p)
			}
		}
	})
}

func integral(pts dataset.Points, bin int) float64 {
	var s float64
	for _, p := range pts {
		s += p.Y * float64(bin)
	}
	return s
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

package reports_test

import (
	"testing"

	"github.com/restartsim/restartsim/results"
)

// Valid results at the edges of what the figures expect are rendered, never refused: one value on
// a log axis, equal latencies, zeros everywhere, times at their bound, a side of an A/B
// comparison without the metric. Each case is valid results as the reader accepts them.
func TestRenderEdgeCases(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	for _, tt := range []struct {
		name   string
		mutate func(r *results.Results, ts *[]results.Sample)
	}{
		{"sweep of one size", func(r *results.Results, _ *[]results.Sample) {
			r.Sweep = []results.SweepPoint{{TGBs: 100, TTFMRByStr: map[string]float64{"checkpoint": 2}}}
		}},
		{"sweep of equal TTFMRs", func(r *results.Results, _ *[]results.Sample) {
			for i := range r.Sweep {
				for k := range r.Sweep[i].TTFMRByStr {
					r.Sweep[i].TTFMRByStr[k] = 1
				}
			}
		}},
		{"equal latencies", func(r *results.Results, _ *[]results.Sample) {
			for i := range r.Strategies {
				s := &r.Strategies[i]
				s.Summary.TTFMRSeconds = v(3)
				for j := range s.Changes {
					s.Changes[j].LatencySeconds = v(3)
				}
			}
		}},
		{"negative and zero latencies", func(r *results.Results, _ *[]results.Sample) {
			for i := range r.Strategies {
				s := &r.Strategies[i]
				s.Summary.TTFMRSeconds = v(0)
				for j := range s.Changes {
					s.Changes[j].LatencySeconds = v(float64(j%3) - 1)
				}
			}
		}},
		{"zeros", func(r *results.Results, ts *[]results.Sample) {
			for i := range r.Strategies {
				s := &r.Strategies[i]
				s.Summary = results.Summary{}
				s.Restart = &results.RestartPhases{}
				s.Restarts = nil
				s.Events = []results.Event{{Kind: "restart"}}
				for j := range s.Changes {
					s.Changes[j] = results.Change{LatencySeconds: v(0), AppliedSeconds: v(0)}
				}
			}
			r.Sweep = nil
			*ts = []results.Sample{{Strategy: "checkpoint", Series: results.SeriesQueueDepth}}
		}},
		{"times at their bound", func(r *results.Results, ts *[]results.Sample) {
			s := &r.Strategies[0]
			s.Events = append(s.Events, results.Event{AtSeconds: results.MaxSeconds, EndSeconds: results.MaxSeconds, Kind: "awsFault"})
			s.Changes[0].AtSeconds, s.Changes[0].AppliedSeconds = results.MaxSeconds, v(results.MaxSeconds)
			s.Restart.FirstMeaningfulSeconds = v(results.MaxSeconds)
			*ts = append(*ts, results.Sample{Strategy: s.Name, Second: results.MaxSeconds, Series: results.SeriesAWSCalls + ":RegisterTargets", Value: results.MaxCount})
		}},
		{"steps in reverse order", func(r *results.Results, _ *[]results.Sample) {
			ph := r.Strategies[1].Restart
			ph.StoppedSeconds, ph.StartedSeconds = 100, 50
			ph.LeadingSeconds, ph.CachesSyncedSeconds, ph.FirstMeaningfulSeconds = v(40), v(30), v(20)
		}},
		{"restart without changes", func(r *results.Results, _ *[]results.Sample) {
			r.Strategies[0].Changes = nil
		}},
		{"one sample", func(_ *results.Results, ts *[]results.Sample) {
			*ts = []results.Sample{{Strategy: "checkpoint", Second: 7, Series: results.SeriesAWSCalls + ":RegisterTargets", Value: 1}}
		}},
		{"A/B side without the metric", func(r *results.Results, _ *[]results.Sample) {
			r.AB = &results.AB{Baseline: "no-checkpoint", Candidate: "checkpoint", Repeats: 1,
				Metrics: []results.ABMetric{{Metric: results.MetricTTFMR}, {Metric: results.MetricCacheSync}}}
			r.Strategies[0].Summary.TTFMRSeconds = nil
		}},
		{"A/B sides of one strategy, runs without an order", func(r *results.Results, _ *[]results.Sample) {
			s := &r.Strategies[0]
			s.Runs = []results.Summary{s.Summary, s.Summary}
			r.AB = &results.AB{Baseline: s.Name, Candidate: s.Name, Repeats: 2,
				Metrics: []results.ABMetric{{Metric: results.MetricAWSCalls}}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, ts := loadGolden(t)
			tt.mutate(r, &ts)
			if err := r.Validate(); err != nil {
				t.Fatalf("not valid: %v", err)
			}
			renderBounded(t, r, ts)
		})
	}
}

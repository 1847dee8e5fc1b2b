package measure

import (
	"testing"

	"github.com/restartsim/restartsim/results"
)

func fp(v float64) *float64 { return &v }

// scrape is a synthetic scrape: counters, then queue depth and running reconciles.
func scrape(at, secs, count, depth, active float64) WorkSample {
	return WorkSample{At: at, ReconcileSeconds: secs, Reconciles: count, QueueDepth: fp(depth), Active: fp(active)}
}

func TestWorkAttribution(t *testing.T) {
	restart := Restart{Stopped: 10, Started: 10.5, At: 10.5}
	for _, tc := range []struct {
		name            string
		work            Work
		firstMeaningful *float64
		want            results.RestartWork
	}{{
		name: "new process: counters from zero, the last scrape at or before each event",
		work: Work{Started: 10.5, Interval: 0.05, Samples: []WorkSample{
			scrape(10.6, 0, 0, 0, 0), // started, nothing reconciled yet: not drained
			scrape(11.0, 0.5, 10, 190, 3),
			scrape(11.5, 1.0, 20, 180, 3), // at the event
			scrape(12.0, 2.0, 40, 160, 3),
			scrape(13.0, 9.0, 199, 0, 1), // empty queue, one still running: not drained
			{At: 13.5, ReconcileSeconds: 9.2, Reconciles: 200, QueueDepth: fp(0), Active: fp(0), EarlyExitSeconds: 0.9, EarlyExits: 180},
			scrape(20.0, 9.5, 205, 0, 0),
		}},
		firstMeaningful: fp(11.5),
		want: results.RestartWork{ScrapeIntervalSeconds: 0.05,
			ReconcileSecondsBeforeFirstMeaningful: fp(1), ReconcilesBeforeFirstMeaningful: np(20),
			DrainedSeconds: fp(13.5), ReconcileSecondsUntilDrained: fp(9.2), ReconcilesUntilDrained: np(200),
			EarlyExits: np(180), EarlyExitSecondsPerBinding: fp(0.005)},
	}, {
		name:            "event between scrapes: the earlier scrape, never interpolated",
		work:            Work{Started: 10.5, Samples: []WorkSample{scrape(11.0, 0.5, 10, 5, 3), scrape(12.0, 2.0, 40, 0, 0)}},
		firstMeaningful: fp(11.9),
		want: results.RestartWork{ReconcileSecondsBeforeFirstMeaningful: fp(0.5), ReconcilesBeforeFirstMeaningful: np(10),
			DrainedSeconds: fp(12), ReconcileSecondsUntilDrained: fp(2), ReconcilesUntilDrained: np(40)},
	}, {
		name:            "event before the first scrape: nothing counted",
		work:            Work{Started: 10.5, Samples: []WorkSample{scrape(11.0, 0.5, 10, 5, 3)}},
		firstMeaningful: fp(10.7),
		want:            results.RestartWork{ReconcileSecondsBeforeFirstMeaningful: fp(0), ReconcilesBeforeFirstMeaningful: np(0)},
	}, {
		name:            "standby that took over: counted from its last scrape before the stop",
		work:            Work{Started: 0, Samples: []WorkSample{scrape(9.9, 0.2, 3, 0, 0), scrape(12, 1.2, 13, 0, 0)}},
		firstMeaningful: fp(12),
		want: results.RestartWork{ReconcileSecondsBeforeFirstMeaningful: fp(1), ReconcilesBeforeFirstMeaningful: np(10),
			DrainedSeconds: fp(12), ReconcileSecondsUntilDrained: fp(1), ReconcilesUntilDrained: np(10)},
	}, {
		name: "no queue depth exposed: never drained",
		work: Work{Started: 10.5, Samples: []WorkSample{{At: 12, ReconcileSeconds: 1, Reconciles: 5}}},
		want: results.RestartWork{},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.work
			in := &Input{Restarts: []Restart{restart}, Work: &w}
			got := measureRestartWork(in, tc.firstMeaningful).work
			if got == nil {
				t.Fatal("no work recorded")
			}
			checkWork(t, *got, tc.want)
		})
	}
	if measureRestartWork(&Input{Work: &Work{}}, nil).work != nil {
		t.Fatal("work recorded without a restart")
	}
}

func np(v int) *int { return &v }

func checkWork(t *testing.T, got, want results.RestartWork) {
	t.Helper()
	eqF := func(name string, g, w *float64) {
		if (g == nil) != (w == nil) || g != nil && !near(*g, *w) {
			t.Errorf("%s = %v, want %v", name, deref(g), deref(w))
		}
	}
	eqN := func(name string, g, w *int) {
		if (g == nil) != (w == nil) || g != nil && *g != *w {
			t.Errorf("%s = %v, want %v", name, g, w)
		}
	}
	eqF("before first meaningful, seconds", got.ReconcileSecondsBeforeFirstMeaningful, want.ReconcileSecondsBeforeFirstMeaningful)
	eqN("before first meaningful, reconciles", got.ReconcilesBeforeFirstMeaningful, want.ReconcilesBeforeFirstMeaningful)
	eqF("drained at", got.DrainedSeconds, want.DrainedSeconds)
	eqF("until drained, seconds", got.ReconcileSecondsUntilDrained, want.ReconcileSecondsUntilDrained)
	eqN("until drained, reconciles", got.ReconcilesUntilDrained, want.ReconcilesUntilDrained)
	eqN("early exits", got.EarlyExits, want.EarlyExits)
	eqF("early exit per binding", got.EarlyExitSecondsPerBinding, want.EarlyExitSecondsPerBinding)
	if got.ScrapeIntervalSeconds != want.ScrapeIntervalSeconds {
		t.Errorf("interval = %v, want %v", got.ScrapeIntervalSeconds, want.ScrapeIntervalSeconds)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

package sim

import (
	"maps"
	"testing"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Thresholds pass at or under their limit, fail over it, fail for a metric of an event that never
// happened, and apply only to the strategies they name.
func TestEvaluateThresholds(t *testing.T) {
	ttfmr := 2.0
	res := &results.Results{Strategies: []results.Strategy{
		{Name: "a", Summary: results.Summary{TTFMRSeconds: &ttfmr}},
		{Name: "b"}, // no restart measured: no TTFMR
	}}
	max := func(v float64) scenario.Number { return scenario.Number{Value: v, Duration: true} }
	sc := &scenario.Scenario{Thresholds: []scenario.Threshold{
		{Metric: results.MetricTTFMR, Max: max(2)},
		{Metric: results.MetricTTFMR, Max: max(1.5), Strategies: []string{"a"}},
	}}
	evaluateThresholds(sc, res)
	got := func(i int) []bool {
		var out []bool
		for _, th := range res.Strategies[i].Thresholds {
			out = append(out, th.Passed)
		}
		return out
	}
	if a := got(0); len(a) != 2 || !a[0] || a[1] {
		t.Errorf("strategy a (TTFMR 2 s): thresholds %+v, want [pass at the 2 s limit, fail over 1.5 s]", res.Strategies[0].Thresholds)
	}
	if b := got(1); len(b) != 1 || b[0] {
		t.Errorf("strategy b (no TTFMR): thresholds %+v, want one failed", res.Strategies[1].Thresholds)
	}
	if err := verdict(res); !results.IsViolation(err) {
		t.Errorf("verdict = %v, want a threshold violation", err)
	}
}

// Every knob a strategy sets is in its recorded config, as written; the name and what runs it are not.
func TestStrategyConfigRecordsEveryKnob(t *testing.T) {
	sc, err := scenario.Parse("knobs.yaml", []byte(`apiVersion: restartsim/v1
kind: Scenario
name: knobs
fleet: {targetGroupBindings: 4}
controller:
  replicas: 2
  strategies:
    - name: all
      checkpoint: compact
      priorityQueue: true
      lowPriorityInitialEvents: false
      deferralDelay: 30m
      deferralJitter: 0s
      requeueDuration: 5m
      targetHealthCacheTTL: 2s
      securityGroupCacheTTL: 1m
      syncPeriod: 10h
      driftCheckInterval: 0s
      resume: true
      resumeInterval: 2s
      leaderElection: true
      leaseDuration: 5s
      renewDeadline: 3s
      retryPeriod: 1s
      releaseOnCancel: false
      warmup: true
      maxConcurrentReconciles: 7
      throttle: "Elastic Load Balancing v2:^RegisterTargets=40:100"
      maxAttempts: 4
timeline: [{action: restart}]
`))
	if err != nil {
		t.Fatal(err)
	}
	got := strategyConfig(sc.Controller.Strategies[0])
	want := map[string]string{"checkpoint": "compact", "priorityQueue": "true", "lowPriorityInitialEvents": "false",
		"deferralDelay": "30m0s", "deferralJitter": "0s", "requeueDuration": "5m0s", "targetHealthCacheTTL": "2s",
		"securityGroupCacheTTL": "1m0s", "syncPeriod": "10h0m0s", "driftCheckInterval": "0s", "resume": "true",
		"resumeInterval": "2s", "leaderElection": "true", "leaseDuration": "5s", "renewDeadline": "3s", "retryPeriod": "1s",
		"releaseOnCancel": "false", "warmup": "true", "maxConcurrentReconciles": "7",
		"throttle": "Elastic Load Balancing v2:^RegisterTargets=40:100", "maxAttempts": "4"}
	if !maps.Equal(got, want) {
		t.Errorf("config %v\nwant %v", got, want)
	}
	if c := strategyConfig(scenario.Strategy{Name: "bare"}); len(c) != 0 {
		t.Errorf("a strategy that sets nothing records %v", c)
	}
}

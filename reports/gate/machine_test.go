package gate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// Each A/B run's machine, in run order, is a property of the JUnit suite.
func TestJUnitHasTheRunsMachines(t *testing.T) {
	m := func(load float64, saturated bool) results.Summary {
		return results.Summary{Machine: &results.Machine{CPUs: 2, Load1Start: load, Load1End: load, Load1Max: load,
			SchedDelay: results.DelayQuantiles{Count: 10, P50: 0.5, P99: 2, Max: 3}, Saturated: saturated, Reason: "load"}}
	}
	r := &results.Results{
		AB: &results.AB{Baseline: "b", Candidate: "c", Order: []string{"b", "c", "c", "b"}},
		Strategies: []results.Strategy{
			{Name: "b", Runs: []results.Summary{m(1, false), m(4, true)}},
			{Name: "c", Runs: []results.Summary{m(2, false), {}}},
		},
	}
	runs := ABMachines(r)
	if len(runs) != 4 || runs[1].Side != "candidate" || runs[1].Run != 1 || runs[3].Side != "baseline" || runs[3].Run != 2 || runs[2].Machine != nil {
		t.Fatalf("runs = %+v", runs)
	}
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, &Report{Scenario: "s", Machines: runs}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<property name="machine.saturatedRuns" value="1 of 3">`,
		`<property name="machine.baseline.2" value="run 4: load1 4.00→4.00 (max 4.00, 2 CPUs), other processes 0%, steal 0.0%, iowait 0.0%, sched delay p50 0.5 ms p99 2 ms max 3 ms, SATURATED: load">`,
		`<property name="machine.candidate.2" value="run 3: not measured">`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JUnit lacks %s:\n%s", want, buf.String())
		}
	}
}

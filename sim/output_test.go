package sim

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/internal/outfile/outfiletest"
	"github.com/restartsim/restartsim/results"
)

// The summary fits a 120-column terminal with long names and failures, and ends with the path.
func TestSummaryFitsTheTerminal(t *testing.T) {
	v := func(f float64) *float64 { return &f }
	q := results.Quantiles{Count: 4, P50: 1234.5, P95: 2345.6, Max: 2345.6}
	res := &results.Results{Scenario: results.Scenario{Name: "quickstart", TGBs: 10000, Seed: 42, TimeScale: 20, WallSeconds: 612}}
	for _, name := range []string{"no-checkpoint", "checkpoint-resume"} {
		res.Strategies = append(res.Strategies, results.Strategy{Name: name,
			Summary: results.Summary{BlindTime: q, BlindTimeChanges: 5, ChangeLatency: q, TTFMRSeconds: v(1234.5), SteadyStateSeconds: v(2345.6),
				AWSCalls: map[string]int{"DescribeTargetHealth": 123456}, Throttled: 12345, K8sWrites: results.K8sWrites{Other: 12345}},
			Invariants: results.Invariants{Violations: make([]results.Violation, 120)},
			Thresholds: []results.ThresholdResult{{Metric: results.MetricTTFMR}, {Metric: results.MetricBlindTimeP50}},
			Restarts: []results.RestartPhases{
				{Mode: "leaderHandover", StoppedSeconds: 1234.5, StartedSeconds: 1234.6, LeaderElection: true, LeadingSeconds: v(1250.8),
					CachesSyncedSeconds: v(1251), FirstAWSCallSeconds: v(1251.5), FirstMeaningfulSeconds: v(1252)},
				{Mode: "crash", StoppedSeconds: 2345.6, StartedSeconds: 2345.7, LeaderElection: true},
			}})
	}
	n := func(i int) *int { return &i }
	sat := &results.Machine{CPUs: 2, Load1Start: 12.25, Load1End: 14.5, Load1Max: 15.75, StealFraction: 0.125, OtherCPUFraction: 0.625,
		SchedDelay: results.DelayQuantiles{Count: 900, P50: 1.5, P99: 48.25, Max: 1234.5}, Saturated: true, Reason: "load"}
	for i := range res.Strategies {
		s := &res.Strategies[i].Summary
		s.Work = &results.RestartWork{ReconcilesBeforeFirstMeaningful: n(123456), ReconcileSecondsBeforeFirstMeaningful: v(12345.25),
			ReconcilesUntilDrained: n(1234567), ReconcileSecondsUntilDrained: v(123456.5), EarlyExitSecondsPerBinding: v(0.0051)}
		s.Machine = sat
		res.Strategies[i].Runs = []results.Summary{*s, *s}
	}
	res.AB = &results.AB{Baseline: "no-checkpoint", Candidate: "checkpoint-resume",
		Order: []string{"no-checkpoint", "checkpoint-resume", "checkpoint-resume", "no-checkpoint"}}
	var b strings.Builder
	printSummary(&b, res, "out/quickstart/20261201T130238Z/report.html")
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for _, l := range lines {
		if n := len([]rune(l)); n > 120 {
			t.Errorf("%d columns: %q", n, l)
		}
	}
	if last := lines[len(lines)-1]; last != "out/quickstart/20261201T130238Z/report.html" {
		t.Errorf("last line %q, want the report's path", last)
	}
	for _, want := range []string{
		// Each restart's steps after its stop; a Lease never taken, a sync never logged.
		"checkpoint-resume #1 leaderHandover 1234.5s +0.10s +16.30s +16.50s +17.00s +17.50s",
		"checkpoint-resume #2 crash 2345.6s +0.10s never ? never never",
	} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	for _, want := range []string{
		// The work until the first meaningful mutation and until drained; the mean early exit.
		"checkpoint-resume 123456 12345.25s 1234567 123456.50s 5.10ms 12.2→14.5 48.2ms !",
		// Each A/B run's machine, in run order.
		"3 candidate #2 12.25→14.50 15.75 62% 12.5% 1.50ms 48.25ms 1234.5ms yes",
		"4 of 4 A/B runs ran on a saturated machine.",
	} {
		if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), want) {
			t.Errorf("summary lacks %q:\n%s", want, b.String())
		}
	}
	if !strings.Contains(b.String(), "1234.5s (4/5)") {
		t.Errorf("blind time does not say that one change was never applied:\n%s", b.String())
	}
}

// A strategy that never reached steady state gets a note saying why the run passes or fails.
func TestNeverSteadyIsExplained(t *testing.T) {
	applied := 3.0
	res := &results.Results{Strategies: []results.Strategy{
		{Name: "steady", Summary: results.Summary{SteadyStateSeconds: &applied}, Invariants: results.Invariants{Passed: true}},
		{Name: "checkpoint-with-a-long-name", Invariants: results.Invariants{Passed: true},
			Changes: []results.Change{{AppliedSeconds: &applied}, {}}},
		{Name: "broken", Changes: []results.Change{{}}},
	}}
	var b strings.Builder
	printSummary(&b, res, "results.json")
	out := b.String()
	for _, want := range []string{
		"STEADY never for checkpoint-with-a-long-name: 1 of 2 changes were never seen applied", "the run passes (exit 0)",
		"STEADY never for broken: 1 of 1", "the invariants fail as well (exit 3)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "STEADY never for steady") {
		t.Errorf("a steady strategy got a note:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if len([]rune(l)) > 120 {
			t.Errorf("%d columns: %q", len([]rune(l)), l)
		}
	}
}

// A file of the run's output that cannot be written, at a write or only at its close, fails the
// run (which Run then marks INCOMPLETE) and leaves no partial or empty file behind.
func TestWriteRunFailsOnFullDisk(t *testing.T) {
	res, err := results.Load("../reports/testdata/results.json")
	if err != nil {
		t.Fatal(err)
	}
	series, err := results.LoadCSV("../reports/testdata/timeseries.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		file     string
		onClose  bool
		noReport bool
	}{
		{file: "results.json", noReport: true},
		{file: "timeseries.csv", onClose: true, noReport: true},
		{file: "aws-calls.png"},
		{file: "report.html", onClose: true},
	} {
		t.Run(tt.file, func(t *testing.T) {
			dir := t.TempDir()
			full := outfiletest.FullDisk{Full: func(name string) bool { return filepath.Base(name) == tt.file+".partial" }, OnClose: tt.onClose}
			var stdout strings.Builder
			err := writeRun(full, newRunConfig(Options{Stdout: &stdout, NoReport: tt.noReport}), dir, res, series)
			if !outfile.IsError(err) || !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), filepath.Join(dir, tt.file)) {
				t.Fatalf("error %v, want ENOSPC writing %s", err, tt.file)
			}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if e.Name() == tt.file || strings.HasSuffix(e.Name(), ".partial") {
					t.Errorf("%s left behind", e.Name())
				}
			}
			if !tt.noReport && !strings.Contains(stdout.String(), "the report could not be written: the run is marked INCOMPLETE") {
				t.Errorf("summary does not say the run is incomplete:\n%s", stdout.String())
			}
		})
	}
}

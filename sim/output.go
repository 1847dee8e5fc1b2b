package sim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/restartsim/restartsim/reports/results"
)

func writeOutput(dir string, res *results.Results, series []results.Sample) error {
	if err := res.Save(filepath.Join(dir, "results.json")); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "timeseries.csv"))
	if err != nil {
		return err
	}
	defer f.Close()
	return results.WriteCSV(f, series)
}

func fmtSec(v *float64) string {
	if v == nil {
		return "never"
	}
	return fmt.Sprintf("%.1fs", *v)
}

func fmtQ(q results.Quantiles, v float64) string {
	if q.Count == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fs", v)
}

func sumCalls(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// printSummary writes one row per strategy and the threshold verdicts.
func printSummary(w io.Writer, res *results.Results, dir string) {
	fmt.Fprintf(w, "\nscenario %s: %d TGBs, seed %d, timeScale %g, wall %.0fs (times below are scenario time)\n",
		res.Scenario.Name, res.Scenario.TGBs, res.Scenario.Seed, res.Scenario.TimeScale, res.Scenario.WallSeconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "STRATEGY\tTTFMR\tCHANGE p50\tp95\tmax\tSTEADY\tGATE p95\tDRIFT max\tAWS CALLS\tBEFORE 1ST\tTHROTTLED\tK8S WRITES\tCKPT PATCHES\tINVARIANTS\tTHRESHOLDS\t")
	for _, st := range res.Strategies {
		s := st.Summary
		inv := "ok"
		if !st.Invariants.Passed {
			inv = fmt.Sprintf("FAIL (%d missing, %d stale, %d)", st.Invariants.Missing, st.Invariants.Stale, len(st.Invariants.Violations))
		}
		thr := "-"
		if len(st.Thresholds) > 0 {
			var parts []string
			for _, t := range st.Thresholds {
				mark := "pass"
				if !t.Passed {
					mark = "FAIL"
				}
				parts = append(parts, fmt.Sprintf("%s %s", shortMetric(t.Metric), mark))
			}
			thr = strings.Join(parts, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", st.Name, fmtSec(s.TTFMRSeconds),
			fmtQ(s.ChangeLatency, s.ChangeLatency.P50), fmtQ(s.ChangeLatency, s.ChangeLatency.P95), fmtQ(s.ChangeLatency, s.ChangeLatency.Max),
			fmtSec(s.SteadyStateSeconds), fmtQ(s.ReadinessGateFlip, s.ReadinessGateFlip.P95), fmtQ(s.DriftRepair, s.DriftRepair.Max), sumCalls(s.AWSCalls), sumCalls(s.AWSCallsBeforeFirstMeaningful), s.Throttled,
			s.K8sWrites.Total(), s.K8sWrites.CheckpointPatches, inv, thr)
	}
	tw.Flush()
	fmt.Fprintf(w, "output: %s\n", dir)
}

func shortMetric(m string) string { return strings.TrimSuffix(m, "_seconds") }

package sim

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/results"
)

// writeRun writes a measured run's output into dir (results.json, timeseries.csv and, unless
// o.NoReport, the report) and prints the summary, whose last line names the report or
// results.json. Each file is written whole or not at all; one that cannot be (a full disk) is an
// error, for which Run marks the folder INCOMPLETE: its output is not all there.
func writeRun(fsys outfile.FS, o runConfig, dir string, res *results.Results, series []results.Sample) error {
	resultsFile := filepath.Join(dir, "results.json")
	if err := outfile.Write(fsys, resultsFile, res.Encode); err != nil {
		return err
	}
	err := outfile.Write(fsys, filepath.Join(dir, "timeseries.csv"), func(w io.Writer) error { return results.WriteCSV(w, series) })
	if err != nil {
		return err
	}
	last := resultsFile
	if !o.NoReport {
		files, err := reports.RenderTo(fsys, res, series, dir)
		if err != nil {
			printSummary(o.Stdout, res, fmt.Sprintf("%s (the report could not be written: the run is marked %s)", resultsFile, IncompleteMarker))
			return fmt.Errorf("the report: %w", err)
		}
		last = files.HTML
	}
	printSummary(o.Stdout, res, last)
	return nil
}

func fmtSec(v *float64) string {
	if v == nil {
		return "never"
	}
	return fmt.Sprintf("%.1fs", *v)
}

func sumCalls(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// printSummary writes one row per strategy, narrow enough for a 120-column terminal (the report
// has the details), the headline's definition, and last the path of the report (or results.json).
func printSummary(w io.Writer, res *results.Results, last string) {
	fmt.Fprintf(w, "\nscenario %s: %d TGBs, seed %d, timeScale %g, wall %.0fs (times below are scenario seconds)\n",
		res.Scenario.Name, res.Scenario.TGBs, res.Scenario.Seed, res.Scenario.TimeScale, res.Scenario.WallSeconds)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "STRATEGY\tBLIND p50\tp95\tTTFMR\tSTEADY\tAWS CALLS\tTHROTTLED\tK8S WRITES\tINVARIANTS\tTHRESHOLDS\t")
	for _, st := range res.Strategies {
		s := st.Summary
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%s\t\n", st.Name,
			blindCell(s, s.BlindTime.P50, s.BlindTime.P50Censored, true), blindCell(s, s.BlindTime.P95, s.BlindTime.P95Censored, false), fmtSec(s.TTFMRSeconds), fmtSec(s.SteadyStateSeconds), sumCalls(s.AWSCalls), s.Throttled,
			s.K8sWrites.Total(), invariantsCell(st.Invariants), thresholdsCell(st.Thresholds))
	}
	tw.Flush()
	printBreakdown(w, res)
	printWork(w, res)
	printMemory(w, res)
	printABRuns(w, res)
	printForecasts(w, res)
	fmt.Fprintln(w, "BLIND: latency of the changes pending at the restart, made during it or by the next churn step, until AWS has them.")
	fmt.Fprintln(w, "TTFMR: from the restart to the first AWS mutation applying any of them (the luckiest change).")
	for _, note := range neverSteadyNotes(res) {
		fmt.Fprintln(w, note)
	}
	for _, note := range unappliedNotes(res) {
		fmt.Fprintln(w, note)
	}
	fmt.Fprintln(w, last)
}

// printBreakdown writes every restart's steps, in seconds after its stop, when any strategy
// restarted: where the blind time went (the report has the same table with more detail).
func printBreakdown(w io.Writer, res *results.Results) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := false
	for _, st := range res.Strategies {
		for i, ph := range st.Restarts {
			if !header {
				fmt.Fprintln(tw, "RESTART\tAT\tSTARTED\tLEASE\tCACHES SYNCED\tFIRST AWS CALL\tMEANINGFUL\t")
				header = true
			}
			since := func(at *float64, unknown string) string {
				if at == nil {
					return unknown
				}
				return fmt.Sprintf("+%.2fs", *at-ph.StoppedSeconds)
			}
			lease := "-"
			if ph.LeaderElection {
				lease = since(ph.LeadingSeconds, "never")
			}
			fmt.Fprintf(tw, "%s #%d %s\t%.1fs\t%s\t%s\t%s\t%s\t%s\t\n", st.Name, i+1, ph.Mode, ph.StoppedSeconds,
				since(&ph.StartedSeconds, ""), lease, since(ph.CachesSyncedSeconds, "?"),
				strings.TrimSpace(since(ph.FirstAWSCallSeconds, "never")+" "+ph.FirstAWSCallService), since(ph.FirstMeaningfulSeconds, "never"))
		}
	}
	if !header {
		return
	}
	fmt.Fprintln(w)
	tw.Flush()
	fmt.Fprintln(w, "RESTART: each restart's steps after the old instance stopped: replacement started, Lease acquired, caches synced")
	fmt.Fprintln(w, "(of the instance that took over; ? where it does not log it), first AWS call (and its service),")
	fmt.Fprintln(w, "first mutation applying a change.")
}

// blindCell is one blind-time quantile, "> v" when it is only a lower bound (a change never applied
// reaches it); share adds how many were applied when some never were.
func blindCell(s results.Summary, v float64, censored, share bool) string {
	cell := fmt.Sprintf("%.1fs", v)
	if censored {
		cell = "> " + cell
	}
	applied := s.BlindTime.Count - s.BlindTime.Censored
	switch {
	case s.BlindTimeChanges == 0:
		return "-"
	case s.BlindTime.Count == 0:
		return "never"
	case share && applied < s.BlindTimeChanges:
		return fmt.Sprintf("%s (%d/%d)", cell, applied, s.BlindTimeChanges)
	}
	return cell
}

func invariantsCell(inv results.Invariants) string {
	if inv.Passed {
		return "ok"
	}
	return fmt.Sprintf("FAIL %d", len(inv.Violations))
}

// thresholdsCell is "pass", or the failed metrics.
func thresholdsCell(ts []results.ThresholdResult) string {
	if len(ts) == 0 {
		return "-"
	}
	var failed []string // the report names them
	for _, t := range ts {
		if !t.Passed {
			failed = append(failed, t.Metric)
		}
	}
	if len(failed) == 0 {
		return fmt.Sprintf("%d pass", len(ts))
	}
	return fmt.Sprintf("FAIL %d/%d", len(failed), len(ts))
}

// printForecasts writes the forecasts, one line per strategy and size, or why there are none.
func printForecasts(w io.Writer, res *results.Results) {
	for _, st := range res.Strategies {
		for _, f := range st.Forecasts {
			switch {
			case f.Refused != "":
				fmt.Fprintf(w, "forecast %s at %d: none: %s\n", st.Name, f.Size, f.Refused)
			case f.BlindP50 != nil:
				fmt.Fprintf(w, "forecast %s at %d: blind p50 %s, p95 %s, TTFMR %s, steady %s\n", st.Name, f.Size,
					spreadCell(f.BlindP50), spreadCell(f.BlindP95), spreadCell(f.TTFMR), fmtSec(f.SteadyStateSeconds))
			default:
				fmt.Fprintf(w, "forecast %s at %d: steady %s\n", st.Name, f.Size, fmtSec(f.SteadyStateSeconds))
			}
		}
	}
}

func spreadCell(s *results.Spread) string {
	return fmt.Sprintf("%.1fs [%.1f, %.1f]", s.Median, s.Low, s.High)
}

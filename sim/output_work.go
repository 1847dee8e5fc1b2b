package sim

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// printWork writes, per strategy, the first restart's reconcile work (from the controller's own
// metrics) and the machine's load during the run.
func printWork(w io.Writer, res *results.Results) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := false
	for _, st := range res.Strategies {
		s := st.Summary
		if s.Work == nil && s.Machine == nil {
			continue
		}
		if !header {
			fmt.Fprintln(tw, "WORK\tRECONCILES→1ST\tSECONDS\tRECONCILES→DRAINED\tSECONDS\tEARLY EXIT\tLOAD1\tDELAY p99\t")
			header = true
		}
		wk := s.Work
		if wk == nil {
			wk = &results.RestartWork{}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", st.Name, fmtCount(wk.ReconcilesBeforeFirstMeaningful),
			fmtReal(wk.ReconcileSecondsBeforeFirstMeaningful, "s"), fmtCount(wk.ReconcilesUntilDrained),
			fmtReal(wk.ReconcileSecondsUntilDrained, "s"), fmtEarlyExit(wk.EarlyExitSecondsPerBinding), loadCell(s.Machine), delayCell(s.Machine))
	}
	if !header {
		return
	}
	fmt.Fprintln(w)
	tw.Flush()
	fmt.Fprintln(w, "WORK: the instance that took over, from its own metrics: reconciles and their total time (real seconds) until")
	fmt.Fprintln(w, "the first meaningful mutation and until its queue drained; EARLY EXIT: mean checkpoint early exit. LOAD1: 1-minute")
	fmt.Fprintln(w, "load, start→end (the run itself adds about 3 on two cores); OTHERS: the CPUs' share used by processes outside")
	fmt.Fprintln(w, "the run; DELAY: how late the harness woke. ! marks a saturated machine:")
	fmt.Fprintln(w, results.SaturationRule+".")
}

// printABRuns writes the machine of every A/B run, in run order: a slow run on a loaded machine
// is the machine's, not the build's.
func printABRuns(w io.Writer, res *results.Results) {
	runs := gate.ABMachines(res)
	if len(runs) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w)
	fmt.Fprintln(tw, "A/B RUN\tSIDE\tLOAD1 start→end\tMAX\tOTHERS\tSTEAL\tDELAY p50\tp99\tMAX\tSATURATED\t")
	for _, r := range runs {
		m := r.Machine
		if m == nil {
			fmt.Fprintf(tw, "%d\t%s #%d\t-\t-\t-\t-\t-\t-\t-\t-\t\n", r.Order, r.Side, r.Run)
			continue
		}
		sat := "no"
		if m.Saturated {
			sat = "yes"
		}
		fmt.Fprintf(tw, "%d\t%s #%d\t%.2f→%.2f\t%.2f\t%.0f%%\t%.1f%%\t%.2fms\t%.2fms\t%.1fms\t%s\t\n", r.Order, r.Side, r.Run,
			m.Load1Start, m.Load1End, m.Load1Max, 100*m.OtherCPUFraction, 100*m.StealFraction, m.SchedDelay.P50, m.SchedDelay.P99, m.SchedDelay.Max, sat)
	}
	tw.Flush()
	if sat, known := gate.Saturated(runs); sat > 0 {
		fmt.Fprintf(w, "%d of %d A/B runs ran on a saturated machine.\n", sat, known)
	}
}

func fmtCount(v *int) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprint(*v)
}

func fmtReal(v *float64, unit string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2f%s", *v, unit)
}

func fmtEarlyExit(v *float64) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf("%.2fms", *v*1000)
}

func loadCell(m *results.Machine) string {
	if m == nil {
		return "-"
	}
	return fmt.Sprintf("%.1f→%.1f", m.Load1Start, m.Load1End)
}

func delayCell(m *results.Machine) string {
	if m == nil {
		return "-"
	}
	s := fmt.Sprintf("%.1fms", m.SchedDelay.P99)
	if m.Saturated {
		s += " !"
	}
	return s
}

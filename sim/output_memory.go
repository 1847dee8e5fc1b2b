package sim

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/restartsim/restartsim/results"
)

// printMemory writes, per strategy, the memory of the instance that took over after the first
// restart: its peak, when it came (seconds after the stop, and the restart phase), and its value
// at the end of the run.
func printMemory(w io.Writer, res *results.Results) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	header, shared := false, false
	for _, st := range res.Strategies {
		m := st.Summary.Memory
		if m == nil || m.Restart == nil || st.Restart == nil {
			continue
		}
		if !header {
			fmt.Fprintln(tw, "MEMORY\tPROCESS\tPEAK RSS\tAT\tPHASE\tPEAK HEAP\tAT\tPHASE\tEND RSS\tEND HEAP\tVmHWM\t")
			header = true
		}
		shared = shared || m.Process == results.MemoryProcessHarness
		r, stop := m.Restart, st.Restart.StoppedSeconds
		heapAt := "-"
		if r.PeakHeapSeconds != nil {
			heapAt = fmt.Sprintf("+%.1fs", *r.PeakHeapSeconds-stop)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t+%.1fs\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", st.Name, m.Process, fmtMiB(r.PeakRSSBytes),
			r.PeakRSSSeconds-stop, r.PeakRSSPhase, fmtMiBPtr(r.PeakHeapInuseBytes), heapAt, orDash(r.PeakHeapPhase),
			fmtMiB(r.EndRSSBytes), fmtMiBPtr(r.EndHeapInuseBytes), fmtMiB(r.HighWaterMarkBytes))
	}
	if !header {
		return
	}
	fmt.Fprintln(w)
	tw.Flush()
	fmt.Fprintln(w, "MEMORY: the instance that took over after the first restart, from its start to the end of the run; AT is")
	fmt.Fprintln(w, "after the stop. HEAP: Go heap in use (go_memstats_heap_inuse_bytes); VmHWM: the kernel's resident high-water mark.")
	if shared {
		fmt.Fprintln(w, "harness: in-process replicas share the harness's process (with fakeaws and its watches); its memory is shown.")
	}
}

// fmtMiB formats bytes in MiB ("-" for 0, unknown).
func fmtMiB(b int64) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1fMiB", float64(b)/(1<<20))
}

func fmtMiBPtr(b *int64) string {
	if b == nil {
		return "-"
	}
	return fmtMiB(*b)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

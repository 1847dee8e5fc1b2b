package reports

import (
	"fmt"

	"github.com/restartsim/restartsim/results"
)

// memoryRow is a strategy's controller memory across its first restart.
type memoryRow struct {
	Strategy, Process                      string
	PeakRSS, PeakRSSAt, PeakRSSPhase       string
	PeakHeap, PeakHeapAt, PeakHeapPhase    string
	Before, EndRSS, EndHeap, HighWaterMark string
}

func memoryRows(r *results.Results) []memoryRow {
	var rows []memoryRow
	for _, s := range r.Strategies {
		m := s.Summary.Memory
		if m == nil || m.Restart == nil || s.Restart == nil {
			continue
		}
		rm, stop := m.Restart, s.Restart.StoppedSeconds
		after := func(t *float64) string {
			if t == nil {
				return "–"
			}
			return fmt.Sprintf("+%.1f s", *t-stop)
		}
		row := memoryRow{Strategy: s.Name, Process: m.Process, PeakRSS: mib(&rm.PeakRSSBytes), PeakRSSAt: after(&rm.PeakRSSSeconds),
			PeakRSSPhase: rm.PeakRSSPhase, PeakHeap: mib(rm.PeakHeapInuseBytes), PeakHeapAt: after(rm.PeakHeapSeconds),
			PeakHeapPhase: dash(rm.PeakHeapPhase), EndRSS: mib(&rm.EndRSSBytes), EndHeap: mib(rm.EndHeapInuseBytes),
			HighWaterMark: mib(&rm.HighWaterMarkBytes), Before: "–"}
		if rm.BeforeRSSBytes > 0 {
			row.Before = mib(&rm.BeforeRSSBytes) + " RSS"
			if rm.BeforeHeapInuseBytes != nil {
				row.Before += ", " + mib(rm.BeforeHeapInuseBytes) + " heap"
			}
		}
		if m.Process == results.MemoryProcessController {
			row.Process = fmt.Sprintf("replica %d", rm.Instance)
		}
		rows = append(rows, row)
	}
	return rows
}

// mib formats bytes in MiB ("–" for nil or 0, unknown).
func mib(b *int64) string {
	if b == nil || *b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f MiB", float64(*b)/(1<<20))
}

func dash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

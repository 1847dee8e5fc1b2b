package reports

import (
	"fmt"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// abMachineRow is one A/B run's machine in the report.
type abMachineRow struct {
	Order                                              int
	Side                                               string
	Known, Saturated                                   bool
	Load, LoadMax, Other, Steal, P50, P99, Max, Reason string
}

// addMachines adds every A/B run's machine, in run order.
func (v *abView) addMachines(r *results.Results) {
	v.SaturationRule = results.SaturationRule
	for _, run := range gate.ABMachines(r) {
		row := abMachineRow{Order: run.Order, Side: fmt.Sprintf("%s #%d", run.Side, run.Run)}
		if m := run.Machine; m != nil {
			row.Known, row.Saturated, row.Reason = true, m.Saturated, m.Reason
			row.Load = fmt.Sprintf("%.2f → %.2f", m.Load1Start, m.Load1End)
			row.LoadMax = fmt.Sprintf("%.2f", m.Load1Max)
			row.Other = fmt.Sprintf("%.0f %%", 100*m.OtherCPUFraction)
			row.Steal = fmt.Sprintf("%.1f %%", 100*m.StealFraction)
			row.P50, row.P99, row.Max = fmt.Sprintf("%.2f ms", m.SchedDelay.P50), fmt.Sprintf("%.2f ms", m.SchedDelay.P99), fmt.Sprintf("%.1f ms", m.SchedDelay.Max)
			v.ProbeInterval = fmtValue(m.ProbeIntervalMillis)
		}
		v.Machines = append(v.Machines, row)
	}
}

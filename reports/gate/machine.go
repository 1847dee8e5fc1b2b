package gate

import (
	"fmt"
	"strconv"

	"github.com/restartsim/restartsim/results"
)

// MachineRun is the machine of one A/B run: its side ("baseline" or "candidate"), its number
// within the side (from 1) and its place in the run order (from 1).
type MachineRun struct {
	Side    string
	Run     int
	Order   int
	Machine *results.Machine // nil: results written before machines were measured
}

// ABMachines lists the machine of every A/B run of r, in the order the runs were made (each
// side's runs in order when r does not record the order).
func ABMachines(r *results.Results) []MachineRun {
	ab := r.AB
	if ab == nil {
		return nil
	}
	runs := map[string][]results.Summary{}
	for _, name := range []string{ab.Baseline, ab.Candidate} {
		if s, ok := r.Strategy(name); ok {
			runs[name] = s.Runs
			if len(s.Runs) == 0 {
				runs[name] = []results.Summary{s.Summary}
			}
		}
	}
	order := ab.Order
	if len(order) == 0 {
		for _, name := range []string{ab.Baseline, ab.Candidate} {
			for range runs[name] {
				order = append(order, name)
			}
		}
	}
	side := map[string]string{ab.Baseline: "baseline", ab.Candidate: "candidate"}
	next := map[string]int{}
	var out []MachineRun
	for i, name := range order {
		k := next[name]
		if k >= len(runs[name]) {
			continue
		}
		next[name]++
		out = append(out, MachineRun{Side: side[name], Run: k + 1, Order: i + 1, Machine: runs[name][k].Machine})
	}
	return out
}

// RanSaturated tells whether a run's machine was saturated (results.SaturationRule); false when
// it was not measured. It is the ABOptions.Saturated of the gate.
func RanSaturated(s results.Summary) bool { return s.Machine != nil && s.Machine.Saturated }

// Saturated counts the runs whose machine was saturated, and the runs whose machine is known.
func Saturated(runs []MachineRun) (saturated, known int) {
	for _, r := range runs {
		if r.Machine != nil {
			known++
			if r.Machine.Saturated {
				saturated++
			}
		}
	}
	return saturated, known
}

// Describe is one line on a run's machine: load, steal and the harness's scheduling delay.
func (r MachineRun) Describe() string {
	m := r.Machine
	if m == nil {
		return "not measured"
	}
	s := fmt.Sprintf("load1 %.2f→%.2f (max %.2f, %d CPUs), other processes %.0f%%, steal %.1f%%, iowait %.1f%%, sched delay p50 %s ms p99 %s ms max %s ms",
		m.Load1Start, m.Load1End, m.Load1Max, m.CPUs, 100*m.OtherCPUFraction, 100*m.StealFraction, 100*m.IOWaitFraction,
		ms(m.SchedDelay.P50), ms(m.SchedDelay.P99), ms(m.SchedDelay.Max))
	if m.Parallel > 1 {
		s += fmt.Sprintf(", %d runs side by side, busy %.0f%%, the run's processes %.1f CPU-s in %.0f s", m.Parallel, 100*m.BusyFraction, m.RunCPUSeconds, m.WallSeconds)
	}
	if m.Saturated {
		s += ", SATURATED: " + m.Reason
	}
	if m.Error != "" {
		s += " (" + m.Error + ")"
	}
	return s
}

func ms(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// machineProperties are the JUnit suite's properties of the A/B runs' machines: one per run, and
// how many were saturated (results.SaturationRule).
func machineProperties(runs []MachineRun) *junitProperties {
	if len(runs) == 0 {
		return nil
	}
	sat, known := Saturated(runs)
	kv := []string{"machine.saturatedRuns", fmt.Sprintf("%d of %d", sat, known), "machine.saturationRule", results.SaturationRule}
	for _, r := range runs {
		kv = append(kv, fmt.Sprintf("machine.%s.%d", r.Side, r.Run), fmt.Sprintf("run %d: %s", r.Order, r.Describe()))
	}
	return props(kv...)
}

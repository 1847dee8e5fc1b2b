package measure

import (
	"fmt"

	"github.com/restartsim/restartsim/results"
)

// machineLoad is measureMachine's result (nil: the machine was not watched).
type machineLoad struct{ machine *results.Machine }

func (m machineLoad) addTo(out *Output) { out.Summary.Machine = m.machine }

// measureMachine reports how busy the machine the run shared was while it was measured (the
// record of sim/machine's watch), and judges whether that was too busy for its timings to count.
func measureMachine(in *Input) machineLoad {
	if in.Machine == nil {
		return machineLoad{}
	}
	m := *in.Machine
	m.Saturated, m.Reason = Saturated(&m)
	return machineLoad{&m}
}

// Saturated applies results.SaturationRule to m: true, with the limits reached, when the other
// processes' CPU share, the probe's p99 delay or the steal reached theirs. The load average is
// recorded but not judged: the run's own API server, etcd, controller and harness keep it near 3
// on two quiet cores.
func Saturated(m *results.Machine) (bool, string) {
	reason := ""
	if m.OtherCPUFraction >= results.SaturationOtherCPUFraction {
		reason = joinReason(reason, fmt.Sprintf("other processes used %.0f %% ≥ %.0f %% of the CPUs", 100*m.OtherCPUFraction, 100*results.SaturationOtherCPUFraction))
	}
	if m.SchedDelay.Count > 0 && m.SchedDelay.P99 >= results.SaturationDelayP99Millis {
		reason = joinReason(reason, fmt.Sprintf("scheduling delay p99 %.1f ms ≥ %g ms", m.SchedDelay.P99, results.SaturationDelayP99Millis))
	}
	if m.StealFraction >= results.SaturationStealFraction {
		reason = joinReason(reason, fmt.Sprintf("CPU steal %.0f %% ≥ %.0f %%", 100*m.StealFraction, 100*results.SaturationStealFraction))
	}
	return reason != "", reason
}

func joinReason(a, b string) string {
	if a == "" {
		return b
	}
	return a + "; " + b
}

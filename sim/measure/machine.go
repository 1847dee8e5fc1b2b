package measure

import (
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/machine"
)

// machineLoad is measureMachine's result (nil: the machine was not watched).
type machineLoad struct{ machine *results.Machine }

func (m machineLoad) addTo(out *Output) { out.Summary.Machine = m.machine }

// measureMachine reports how busy the machine the run shared was while it was measured, and
// judges whether that was too busy for its timings to count (machine.Saturated).
func measureMachine(in *Input) machineLoad {
	if in.Machine == nil {
		return machineLoad{}
	}
	m := *in.Machine
	m.Saturated, m.Reason = machine.Saturated(&m)
	return machineLoad{&m}
}

package sim

import (
	"fmt"
	"slices"
	"sort"

	"github.com/restartsim/restartsim/sim/scenario"
)

// checkManagerSetups checks that every inProcess strategy of the run (sc) has a manager setup and
// that every setup names one of the scenario: only a Go test (package restartsimtest) gives them.
func checkManagerSetups(o runConfig, sc *scenario.Scenario) error {
	for _, st := range sc.Controller.Strategies {
		if st.InProcess != nil && o.ManagerSetups[st.Name] == nil {
			return fmt.Errorf("strategy %s: inProcess runs a controller-runtime manager that a Go test fills (restartsimtest.Run); restartsim simulate cannot run it", st.Name)
		}
	}
	var names, unused []string
	for _, st := range o.Scenario.Controller.Strategies { // those a selection left out included
		if st.InProcess != nil {
			names = append(names, st.Name)
		}
	}
	for name := range o.ManagerSetups {
		if !slices.Contains(names, name) {
			unused = append(unused, name)
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return fmt.Errorf("manager setups for %v: no inProcess strategy of that name in scenario %s (inProcess strategies: %v)", unused, sc.Name, names)
	}
	return nil
}

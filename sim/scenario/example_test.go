package scenario_test

import (
	"fmt"

	"github.com/restartsim/restartsim/sim/scenario"
)

func ExampleParse() {
	_, err := scenario.Parse("bad.yaml", []byte(`apiVersion: restartsim/v1
kind: Scenario
name: demo
timeScale: 0
fleet: {targetGroupBindings: 10}
controller: {strategies: [{name: a}]}
timeline:
  - {action: restart, mode: sideways}
`))
	fmt.Println(err)
	// Output:
	// 2 problems:
	//   bad.yaml:4:1: timeScale: must be greater than 0 and at most 10000, got 0
	//   bad.yaml:8:23: timeline[0].mode: "sideways" is not one of crash, graceful, leaderHandover
}

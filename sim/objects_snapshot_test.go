package sim

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/objects"
	"github.com/restartsim/restartsim/sim/scenario"
)

// podsBesideTheFleet: 40 pods no Service selects, each with a Running status the harness writes,
// beside a 10-binding fleet, shared by two strategies through the fleet snapshot.
const podsBesideTheFleet = `apiVersion: restartsim/v1
kind: Scenario
name: pods-snapshot
seed: 5
timeScale: 5
aws: {profile: aws-documented, warmupProfile: unlimited}
fleet:
  targetGroupBindings: 10
  objects:
    - name: pods
      count: 40
      template:
        apiVersion: v1
        kind: Pod
        metadata: {name: 'extra-{{.Index}}', labels: {app: extra}}
        spec: {containers: [{name: app, image: 'registry.example.com/app:{{mod .Index 3}}'}]}
        status: {phase: Running, podIP: '100.64.0.{{add .Index 1}}'}
      ready: 'object.status.phase == "Running"'
      invariant: 'object.status.podIP != ""'
controller:
  strategies:
    - {name: no-checkpoint, checkpoint: none}
    - {name: checkpoint, checkpoint: annotation}
timeline:
  - {action: restart, mode: crash}
  - {after: 1s, action: churn, kind: mixed, services: 2}
  - {waitFor: steadyState, timeout: 5m}
`

// Object groups that need no controller to exist go into the fleet snapshot, so every strategy
// starts with them, status included (the warm-up waits for each to be Running, which only the
// snapshot's status write makes it); a group with an AWS resource or a creation order does not.
func TestObjectGroupsInTheFleetSnapshot(t *testing.T) {
	sc, err := scenario.Parse("pods-snapshot.yaml", []byte(podsBesideTheFleet))
	if err != nil {
		t.Fatal(err)
	}
	if !useFleetSnapshot(newRunConfig(Options{}), sc, 2) {
		t.Fatal("a group of plain pods keeps the strategies off the fleet snapshot")
	}
	for name, g := range map[string]objects.Group{
		"aws resource": {Name: "tgs", AWS: &objects.AWSRef{Kind: "targetGroup", Name: "object.spec.name"}},
		"after":        {Name: "later", After: []string{"pods"}},
	} {
		with := *sc
		with.Fleet.Objects = append(append([]objects.Group(nil), sc.Fleet.Objects...), g)
		if useFleetSnapshot(newRunConfig(Options{}), &with, 2) {
			t.Errorf("%s: a group that needs the controller under test went into the snapshot", name)
		}
	}

	testenv.RequireAssets(t)
	res := runAll(t, sc, 5*time.Minute)
	for _, st := range res.Strategies {
		if !st.Invariants.Passed || st.Summary.Objects.Groups["pods"] != 40 {
			t.Errorf("%s: invariants %+v, objects %+v: want every pod Running with an IP", st.Name, st.Invariants, st.Summary.Objects)
		}
		m := st.Summary.Memory
		if m == nil || m.Process != results.MemoryProcessHarness || m.Restart == nil || m.Restart.PeakRSSBytes <= 0 ||
			m.Restart.PeakHeapInuseBytes == nil || m.Restart.PeakRSSPhase == "" {
			t.Errorf("%s: memory %+v: want the harness process's readings across the restart", st.Name, m)
		}
	}
}

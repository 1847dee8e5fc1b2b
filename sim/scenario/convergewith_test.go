package scenario

import (
	"strings"
	"testing"
)

// convergeWith converges with one strategy's controller and restarts into another's; the fleet
// sets the spec fields and the port layout in which controllers' checkpoints could differ.
const convergeWith = `apiVersion: restartsim/v1
kind: Scenario
name: converge-with
seed: 7
timeScale: 1
aws: {profile: aws-documented, warmupProfile: unlimited}
fleet:
  targetGroupBindings: 10
  targetGroupProtocolShare: 0.5
  assumeRoleShare: 0.5
  namedPortShare: 0.5
  duplicateEndpointShare: 0.5
controller:
  strategies:
    - {name: reference, checkpoint: annotation}
    - {name: after, checkpoint: none, convergeWith: reference}
    - name: lbc
      convergeWith: reference
      external: {command: [/bin/true]}
timeline:
  - {action: restart, mode: crash}
  - {waitFor: steadyState, timeout: 1m}
`

func TestParseConvergeWith(t *testing.T) {
	s, err := Parse("c.yaml", []byte(convergeWith))
	if err != nil {
		t.Fatal(err)
	}
	st := s.Controller.Strategies
	if st[0].ConvergeWith != "" || st[1].ConvergeWith != "reference" || st[2].ConvergeWith != "reference" {
		t.Errorf("convergeWith: %q %q %q", st[0].ConvergeWith, st[1].ConvergeWith, st[2].ConvergeWith)
	}
	f := s.Fleet.WorkloadSpec()
	if f.TargetGroupProtocolShare != 0.5 || f.AssumeRoleShare != 0.5 || f.NamedPortShare != 0.5 || f.DuplicateEndpointShare != 0.5 {
		t.Errorf("workload spec %+v: want the four shares", f)
	}
}

func TestParseConvergeWithErrors(t *testing.T) {
	sub := func(old, new string) string {
		if !strings.Contains(convergeWith, old) {
			t.Fatalf("test bug: the scenario lacks %q", old)
		}
		return strings.Replace(convergeWith, old, new, 1)
	}
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown strategy", sub("convergeWith: reference}", "convergeWith: lbc-v2}"),
			`c.yaml:16:39: controller.strategies[1].convergeWith: unknown strategy "lbc-v2" (have: reference, after, lbc)`},
		{"itself", sub("convergeWith: reference}", "convergeWith: after}"),
			`c.yaml:16:39: controller.strategies[1].convergeWith: names the strategy itself`},
		{"replicas", sub("controller:\n", "controller:\n  replicas: 2\n"),
			`controller.strategies[1].convergeWith: needs controller.replicas 1 (got 2)`},
		{"no restart", sub("  - {action: restart, mode: crash}\n", ""),
			`controller.strategies[1].convergeWith: needs a restart in the timeline`},
		{"external strategy", sub("      convergeWith: reference\n", "      convergeWith: nope\n"),
			`c.yaml:18:7: controller.strategies[2].convergeWith: unknown strategy "nope"`},
		{"ab strategy", sub("timeline:", "ab: {strategy: reference, baseline: {binary: /bin/true}, candidate: {binary: /bin/true}}\ntimeline:"),
			`controller.strategies[1].convergeWith: names "reference", which ab compares as two builds`},
		{"share above 1", sub("assumeRoleShare: 0.5", "assumeRoleShare: 1.5"),
			`c.yaml:10:3: fleet.assumeRoleShare: must be a fraction between 0 and 1, got 1.5`},
		{"negative share", sub("namedPortShare: 0.5", "namedPortShare: -0.1"),
			`c.yaml:11:3: fleet.namedPortShare: must be a fraction between 0 and 1, got -0.1`},
		{"protocol share", sub("targetGroupProtocolShare: 0.5", "targetGroupProtocolShare: 2"),
			`c.yaml:9:3: fleet.targetGroupProtocolShare: must be a fraction`},
		{"duplicates with the cluster's slices", sub("seed: 7", "seed: 7\ncluster: {kubeconfig: {}, endpointSlices: cluster}"),
			`c.yaml:13:3: fleet.duplicateEndpointShare: needs cluster.endpointSlices simulated`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
			assertPlaced(t, err)
		})
	}
}

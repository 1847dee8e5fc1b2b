package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestStrategiesShareOneFleetSnapshot: with two strategies on envtest, the fleet is created and
// converged once (its target groups and registrations in the snapshot's call log), both strategies work
// on the snapshot's groups without creating any and converge, and the etcd copies are removed.
func TestStrategiesShareOneFleetSnapshot(t *testing.T) {
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("it.yaml", []byte(header+`controller:
  strategies:
    - {name: plain, checkpoint: none}
    - {name: ckpt, checkpoint: annotation, deferralDelay: 30m, deferralJitter: 1m}
timeline:
  - {action: restart, mode: crash}
  - {after: 1s, action: churn, kind: mixed, services: 2}
  - {waitFor: steadyState, timeout: 60s}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Stdout: io.Discard, Progress: io.Discard, NoReport: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Results.Scenario.FleetSetupSeconds <= 0 {
		t.Errorf("fleetSetupSeconds = %v", rep.Results.Scenario.FleetSetupSeconds)
	}
	snapDir := filepath.Join(rep.Dir, "fleet-3")
	snapOps := callsByOp(t, filepath.Join(snapDir, "aws-calls.jsonl"))
	if n := len(snapOps["CreateTargetGroup"]); n != sc.Fleet.TargetGroupBindings {
		t.Fatalf("snapshot created %d target groups, want %d", n, sc.Fleet.TargetGroupBindings)
	}
	converged := set(snapOps["RegisterTargets"]) // the convergence registered every group's targets
	if len(converged) != sc.Fleet.TargetGroupBindings {
		t.Fatalf("convergence registered targets in %d groups, want %d", len(converged), sc.Fleet.TargetGroupBindings)
	}
	if _, err := os.Stat(filepath.Join(snapDir, "etcd")); !os.IsNotExist(err) {
		t.Errorf("snapshot etcd data left behind: %v", err)
	}
	for _, st := range rep.Results.Strategies {
		if !st.Invariants.Passed || st.Summary.TTFMRSeconds == nil {
			t.Errorf("%s: invariants %+v, TTFMR %v", st.Name, st.Invariants, st.Summary.TTFMRSeconds)
		}
		ops := callsByOp(t, filepath.Join(rep.Dir, st.Name, "aws-calls.jsonl"))
		if n := len(ops["CreateTargetGroup"]); n != 0 {
			t.Errorf("%s created %d target groups itself", st.Name, n)
		}
		// Every strategy's controller saw the snapshot's groups and registered only what the churn
		// changed. Without checkpoints a full reconcile describes every group; the checkpoint
		// strategy finds the convergence's checkpoints and describes only the churned groups.
		got := set(ops["DescribeTargetHealth"])
		switch st.Name {
		case "plain":
			if !maps.Equal(got, converged) {
				t.Errorf("%s described groups %v, the snapshot has %v", st.Name, slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(converged)))
			}
		default:
			for arn := range got {
				if !converged[arn] {
					t.Errorf("%s described %s, which is not in the snapshot", st.Name, arn)
				}
			}
			if len(got) == 0 || len(got) >= len(converged) {
				t.Errorf("%s described %d of the snapshot's %d groups: want the churned ones only", st.Name, len(got), len(converged))
			}
		}
		if n, all := len(ops["RegisterTargets"]), len(snapOps["RegisterTargets"]); n == 0 || n >= all {
			t.Errorf("%s: %d registrations; want some (the churn) but fewer than the convergence's %d", st.Name, n, all)
		}
		if _, err := os.Stat(filepath.Join(rep.Dir, st.Name, "etcd")); !os.IsNotExist(err) {
			t.Errorf("%s: etcd copy left behind: %v", st.Name, err)
		}
	}
}

func set(items []string) map[string]bool {
	out := map[string]bool{}
	for _, s := range items {
		out[s] = true
	}
	return out
}

// callsByOp reads a call log: the target group ARN of each successful call, by operation (empty for
// CreateTargetGroup, whose ARN is in the response).
func callsByOp(t *testing.T, path string) map[string][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var c fakeaws.Call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if c.Outcome == fakeaws.OutcomeOK {
			out[c.Operation] = append(out[c.Operation], c.TargetGroupARN)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

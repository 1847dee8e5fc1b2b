package sim

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/predict"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestFourRunsSideBySideKeepToThemselves starts four runs of the reference controller's binary side
// by side, each on its own seed (so its target groups have ARNs of their own), and checks that no
// run reached another's ports or files: every call in a run's fakeaws call log names only that
// run's target groups and none was refused as unknown, each run saw its own processes' CPU, and
// each machine record says four ran side by side.
func TestFourRunsSideBySideKeepToThemselves(t *testing.T) {
	testenv.RequireAssets(t)
	bin := buildRestartsim(t)
	sc, err := scenario.Parse("side-by-side.yaml", []byte(header+`repeats: 4
controller:
  strategies: [{name: ckpt, checkpoint: annotation, deferralDelay: 30m, deferralJitter: 1m, binary: `+bin+`}]
timeline:
  - {action: restart, mode: crash}
  - {after: 1s, action: churn, kind: scale, services: 2}
  - {waitFor: steadyState, timeout: 2m}
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true, Parallel: 4})
	if err != nil {
		t.Fatal(err)
	}
	owner := map[string]int{} // target group ARN → the run whose log named it first
	for k := 1; k <= 4; k++ {
		calls, err := predict.ReadCallLog(filepath.Join(rep.Dir, "ckpt", fmt.Sprintf("repeat-%d", k), "aws-calls.jsonl"))
		if err != nil || len(calls) == 0 {
			t.Fatalf("run %d: no AWS calls (%v)", k, err)
		}
		for _, c := range calls {
			if strings.Contains(c.ErrorCode, "NotFound") {
				t.Errorf("run %d: %s refused %s: %s (another run's controller?)", k, c.Operation, c.ErrorCode, c.ErrorMessage)
			}
			if c.TargetGroupARN == "" {
				continue
			}
			if o, ok := owner[c.TargetGroupARN]; ok && o != k {
				t.Errorf("run %d's log names run %d's target group %s", k, o, c.TargetGroupARN)
			}
			owner[c.TargetGroupARN] = k
		}
	}
	st, _ := rep.Results.Strategy("ckpt")
	if len(st.Runs) != 4 {
		t.Fatalf("%d runs, want 4", len(st.Runs))
	}
	for i, r := range st.Runs {
		if m := r.Machine; m == nil || m.Parallel != 4 || m.RunCPUSeconds <= 0 || m.WallSeconds <= 0 {
			t.Errorf("run %d: machine %+v, want 4 side by side and the run's own CPU seconds", i+1, m)
		}
	}
}

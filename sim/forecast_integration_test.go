package sim

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/scenario"
)

// A scenario's predict section gives every strategy a forecast at each size, written to
// results.json and printed: figures where the model explains the restart, the reason where not.
func TestPredictSectionForecastsEachStrategy(t *testing.T) {
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("it.yaml", []byte(header+`controller:
  strategies: [{name: none, checkpoint: none}]
timeline:
  - {action: restart, mode: crash, downtime: 2s}
  - {after: 1s, action: churn, kind: mixed, services: 3}
  - {waitFor: steadyState, timeout: 2m}
predict: {sizes: [80, 800]}
`))
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Stdout: &stdout, Progress: &bytes.Buffer{},
		Logger: logr.Discard(), NoReport: true})
	if err != nil {
		t.Fatal(err)
	}
	saved, err := results.Load(filepath.Join(rep.Dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	fs := saved.Strategies[0].Forecasts
	if len(fs) != 2 || fs[0].Size != 80 || fs[1].Size != 800 {
		t.Fatalf("forecasts %+v, want one at 80 and one at 800", fs)
	}
	for _, f := range fs {
		if f.Refused == "" && f.SteadyStateSeconds == nil {
			t.Errorf("forecast at %d has neither figures nor a reason: %+v", f.Size, f)
		}
		if want := fmt.Sprintf("forecast none at %d: ", f.Size); !strings.Contains(stdout.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, stdout.String())
		}
	}
	if fs[0].Refused == "" && *fs[1].SteadyStateSeconds <= *fs[0].SteadyStateSeconds {
		t.Errorf("steady state %.1f s at 800, not later than %.1f s at 80", *fs[1].SteadyStateSeconds, *fs[0].SteadyStateSeconds)
	}
	t.Log(stdout.String())
}

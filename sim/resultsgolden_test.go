package sim

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/sim/scenario"
)

var updateResultsGolden = flag.Bool("update-results", false, "rewrite testdata/results-golden")

// TestResultsOfShippedScenariosGolden checks that what results.json records of a scenario (its
// description, gate rules and A/B set-up) is byte for byte what it was, for shipped scenarios with
// gate and ab sections; -update-results rewrites the goldens.
func TestResultsOfShippedScenariosGolden(t *testing.T) {
	started := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// The LBC scenarios' files: they must exist, and results.json names neither.
	lbc := t.TempDir()
	if err := os.WriteFile(filepath.Join(lbc, "controller"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("LBC_BINARY", filepath.Join(lbc, "controller"))
	t.Setenv("LBC_CRDS", lbc)
	for _, file := range []string{"ci-gate.yaml", "lbc/gate.yaml", "lbc/memory.yaml", "scale-1k.yaml"} {
		t.Run(file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("..", "scenarios", file))
			if err != nil {
				t.Fatal(err)
			}
			sc, err := scenario.ParsePartial(file, data)
			if err != nil {
				t.Fatal(err)
			}
			res := newResults(&preparedRun{o: newRunConfig(Options{ScenarioFile: file, Version: "golden"}), sc: sc}, started)
			res.AB = sc.ResultsAB()
			// What the machine and toolchain say, which the goldens do not hold.
			res.Environment.GoVersion, res.Environment.OS, res.Environment.Arch, res.Environment.CPUs = "go", "os", "arch", 2
			var got bytes.Buffer
			if err := res.Encode(&got); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "results-golden", strings.ReplaceAll(strings.TrimSuffix(file, ".yaml"), "/", "-")+".json")
			if *updateResultsGolden {
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("results.json of %s differs from %s:\n%s", file, golden, got.String())
			}
		})
	}
}

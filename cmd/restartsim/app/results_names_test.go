package app

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

// namesBroken are results that report, gate and sweep all refuse, with the field each names: a
// strategy shadowed by a second of its name, a nameless one, results without their scenario.
var namesBroken = []struct {
	name   string
	mutate func(r *results.Results)
	want   string
}{
	{"repeated strategy name", func(r *results.Results) {
		r.Strategies = append(r.Strategies, r.Strategies[0])
	}, `strategies[2].name: "no-checkpoint" repeats strategies[0]`},
	{"strategy without a name", func(r *results.Results) { r.Strategies[1].Name = "" }, "strategies[1].name: missing"},
	{"no scenario", func(r *results.Results) { r.Scenario = results.Scenario{} }, "scenario.name: missing"},
}

func TestReportAndGateRefuseBrokenNames(t *testing.T) {
	for _, tt := range namesBroken {
		t.Run(tt.name, func(t *testing.T) {
			path := corrupt(t, tt.mutate)
			out := filepath.Join(t.TempDir(), "report")
			for _, args := range [][]string{
				{"report", "-f", path, "-o", out},
				{"gate", "-f", path},
			} {
				code, stdout := execute(t, args...)
				if code != ExitBadInput || !strings.Contains(stdout, "results.json: corrupted: "+tt.want) {
					t.Errorf("%s: exit %d, want %d naming %q:\n%s", args[0], code, ExitBadInput, tt.want, stdout)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s created for bad input", out)
			}
		})
	}
}

// A sweep whose merged results would be refused by report and gate writes nothing.
func TestSweepRefusesBrokenNames(t *testing.T) {
	for _, tt := range namesBroken {
		if tt.name == "no scenario" {
			continue // a sweep names its merged scenario <name>-sweep
		}
		t.Run(tt.name, func(t *testing.T) {
			_, res := copyGolden(t)
			r, err := results.Load(res)
			if err != nil {
				t.Fatal(err)
			}
			tt.mutate(r)
			o := &sweepOptions{OutDir: t.TempDir(), NoReport: true}
			rows := []sweepRow{{size: 10, ttfmr: map[string]float64{}}}
			_, err = o.writeSweep(r, filepath.Dir(res), rows, io.Discard)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one naming %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(o.OutDir); len(entries) != 0 {
				t.Errorf("sweep wrote %v for invalid results", entries)
			}
		})
	}
}

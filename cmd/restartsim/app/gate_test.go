package app

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/restartsim/restartsim/results"
)

// regressed writes a copy of the golden results whose checkpoint strategy makes twice the AWS
// calls before its first meaningful reconcile.
func regressed(t *testing.T, res string) string {
	t.Helper()
	r, err := results.Load(res)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.Strategy("checkpoint")
	for op, n := range s.Summary.AWSCallsBeforeFirstMeaningful {
		s.Summary.AWSCallsBeforeFirstMeaningful[op] = 2 * n
	}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestGateCommandFileBaseline(t *testing.T) {
	_, res := copyGolden(t)
	base := filepath.Join(t.TempDir(), "baselines", "golden.json")
	junit := filepath.Join(t.TempDir(), "junit.xml")

	code, out := execute(t, "gate", "--results", res, "--baseline", base, "--junit", junit)
	if code != ExitBadInput || !strings.Contains(out, "--update-baseline") {
		t.Fatalf("no baseline yet: exit %d, want %d with a hint:\n%s", code, ExitBadInput, out)
	}
	if data, _ := os.ReadFile(junit); !strings.Contains(string(data), "<error") {
		t.Errorf("junit for bad input:\n%s", data)
	}

	if code, out := execute(t, "gate", "--results", res, "--baseline", base, "--update-baseline"); code != ExitOK || !strings.Contains(out, "baseline updated") {
		t.Fatalf("update: exit %d:\n%s", code, out)
	}

	code, out = execute(t, "gate", "--results", res, "--baseline", base, "--junit", junit)
	if code != ExitOK || !strings.Contains(out, "STRATEGY") || !strings.Contains(out, "gate passed: 3 checks") {
		t.Fatalf("same results: exit %d:\n%s", code, out)
	}

	code, out = execute(t, "gate", "--results", regressed(t, res), "--baseline", base, "--junit", junit)
	if code != ExitFailure || !strings.Contains(out, "FAIL") {
		t.Fatalf("regression: exit %d, want %d:\n%s", code, ExitFailure, out)
	}
	if data, _ := os.ReadFile(junit); !strings.Contains(string(data), `failures="1"`) {
		t.Errorf("junit for a regression:\n%s", data)
	}
}

func TestGateCommandBadInput(t *testing.T) {
	_, res := copyGolden(t)
	for _, args := range [][]string{
		{"gate", "--baseline", "b.json"},
		{"gate", "--results", res},
		{"gate", "--results", filepath.Join(t.TempDir(), "missing.json"), "--baseline", "b.json"},
		{"gate", "--results", res, "--baseline", "s3://bucket-only"},
	} {
		if code, out := execute(t, args...); code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d:\n%s", args, code, ExitBadInput, out)
		}
	}
}

func TestGateCommandS3Baseline(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("ci"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	// Credentials come from the usual environment.
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDTEST")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))

	_, res := copyGolden(t)
	s3 := []string{"--baseline", "s3://ci/restartsim/golden.json", "--s3-endpoint", srv.URL, "--region", "us-west-2"}
	if code, out := execute(t, append([]string{"gate", "--results", res, "--update-baseline"}, s3...)...); code != ExitOK {
		t.Fatalf("update: exit %d:\n%s", code, out)
	}
	if code, out := execute(t, append([]string{"gate", "--results", res}, s3...)...); code != ExitOK {
		t.Fatalf("check: exit %d:\n%s", code, out)
	}
	if code, out := execute(t, append([]string{"gate", "--results", regressed(t, res)}, s3...)...); code != ExitFailure {
		t.Fatalf("regression: exit %d:\n%s", code, out)
	}
}

// The A/B flags and -f are checked before anything runs: bad combinations are exit 2 and leave a
// JUnit error behind, never an old pass.
func TestGateCommandABBadInput(t *testing.T) {
	_, res := copyGolden(t)
	dir := t.TempDir()
	noAB := filepath.Join(dir, "no-ab.yaml")
	if err := os.WriteFile(noAB, []byte(`apiVersion: restartsim/v1
kind: Scenario
name: no-ab
fleet: {targetGroupBindings: 2}
controller: {strategies: [{name: c}]}
timeline: [{action: restart}]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	junit := filepath.Join(dir, "junit.xml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"gate", "-f", "../../../scenarios/ci-gate.yaml", "--results", res}, "give one of"},
		{[]string{"gate", "--results", res, "--candidate-binary", "/bin/true"}, "need -f"},
		{[]string{"gate", "-f", noAB, "--candidate-binary", "/bin/true"}, "need an ab section"},
		{[]string{"gate", "-f", "../../../scenarios/ci-gate.yaml", "--candidate-binary", filepath.Join(dir, "missing")}, "--candidate-binary"},
	} {
		if err := os.WriteFile(junit, []byte(`<testsuites failures="0"/>`), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out := execute(t, append(tc.args, "--junit", junit)...)
		if code != ExitBadInput || !strings.Contains(out, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tc.args, code, ExitBadInput, tc.want, out)
		}
		if data, _ := os.ReadFile(junit); !strings.Contains(string(data), "<error") {
			t.Errorf("%v: junit not replaced by an error:\n%s", tc.args, data)
		}
	}
}

// abFile writes an A/B results.json whose sides each have TTFMR values base and cand.
func abFile(t *testing.T, base, cand []float64) string {
	t.Helper()
	side := func(name string, vals []float64) results.Strategy {
		s := results.Strategy{Name: name}
		for _, v := range vals {
			s.Runs = append(s.Runs, results.Summary{TTFMRSeconds: &v})
		}
		return s
	}
	r := &results.Results{Scenario: results.Scenario{Name: "ab"},
		Strategies: []results.Strategy{side("s-baseline", base), side("s", cand)},
		AB: &results.AB{Strategy: "s", Baseline: "s-baseline", Candidate: "s", Alpha: 0.05, Repeats: len(base),
			Metrics: []results.ABMetric{{Metric: results.MetricTTFMR, MinEffect: 0.2, AbsEffect: 1}}}}
	path := filepath.Join(t.TempDir(), "results.json")
	if err := r.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGateCommandABVerdicts: the three A/B verdicts map to exit 0, 1 and 75, and an inconclusive
// one is named, with its reason, in the output and as an error in the JUnit.
func TestGateCommandABVerdicts(t *testing.T) {
	junit := filepath.Join(t.TempDir(), "junit.xml")
	for _, tc := range []struct {
		name       string
		base, cand []float64
		code       int
		out, xml   string
	}{
		{"pass", []float64{1.40, 1.41, 1.42, 1.43, 1.44, 1.45, 1.46, 1.47}, []float64{1.41, 1.42, 1.43, 1.44, 1.45, 1.46, 1.47, 1.48}, ExitOK, "A/B verdict: pass", `name="ab.verdict" value="pass"`},
		{"fail", []float64{1.40, 1.41, 1.42, 1.43, 1.44, 1.45, 1.46, 1.47}, []float64{2.8, 2.9, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5}, ExitFailure, "A/B verdict: FAIL", `type="regression"`},
		{"inconclusive", []float64{1, 1.4, 1.8, 2.2, 2.6, 3.0, 3.4, 3.8}, []float64{1.1, 1.5, 1.9, 2.3, 2.7, 3.1, 3.5, 3.9}, ExitInconclusive, "gate INCONCLUSIVE (exit 75)", `type="inconclusive"`},
	} {
		code, out := execute(t, "gate", "-f", abFile(t, tc.base, tc.cand), "--junit", junit)
		if code != tc.code || !strings.Contains(out, tc.out) {
			t.Errorf("%s: exit %d, want %d with %q:\n%s", tc.name, code, tc.code, tc.out, out)
		}
		if data, _ := os.ReadFile(junit); !strings.Contains(string(data), tc.xml) {
			t.Errorf("%s: junit lacks %q:\n%s", tc.name, tc.xml, data)
		}
	}
}

// A negative or out-of-range figure in the results or the baseline is corrupted input (exit 2),
// named by file and field: a checkpoint p95 of -100 once passed a relative rule.
func TestGateCommandRefusesCorruptedFigures(t *testing.T) {
	_, good := copyGolden(t)
	base := filepath.Join(t.TempDir(), "baseline.json")
	if code, out := execute(t, "gate", "-f", good, "--baseline", base, "--update-baseline"); code != ExitOK {
		t.Fatalf("update: exit %d:\n%s", code, out)
	}
	negative := corrupt(t, func(r *results.Results) {
		s, _ := r.Strategy("checkpoint")
		s.Summary.BlindTime.P95 = -100
		v := -100.0
		s.Summary.TTFMRSeconds = &v
	})
	code, out := execute(t, "gate", "-f", negative, "--baseline", base)
	if code != ExitBadInput || !strings.Contains(out, negative+": corrupted: ") || !strings.Contains(out, "strategies[1].summary.ttfmrSeconds: -100 is negative") {
		t.Errorf("negative figures: exit %d, want %d naming the file and the field:\n%s", code, ExitBadInput, out)
	}
	code, out = execute(t, "gate", "-f", good, "--baseline", negative)
	if code != ExitBadInput || !strings.Contains(out, "baseline: "+negative+": corrupted: ") {
		t.Errorf("negative baseline: exit %d, want %d naming the file:\n%s", code, ExitBadInput, out)
	}
}

// A --junit report that cannot be written is exit 1, and no partial file is left.
func TestGateCommandJUnitWriteFailure(t *testing.T) {
	_, res := copyGolden(t)
	junit := filepath.Join(t.TempDir(), "missing", "junit.xml")
	code, out := execute(t, "gate", "-f", res, "--junit", junit, "--baseline", regressed(t, res))
	if code != ExitFailure || !strings.Contains(out, "writing "+junit) {
		t.Errorf("exit %d, want %d naming %s:\n%s", code, ExitFailure, junit, out)
	}
	if code, out := execute(t, "gate", "-f", res, "--junit", os.DevNull); code != ExitBadInput || !strings.Contains(out, "not a regular file") {
		t.Errorf("--junit %s: exit %d, want %d:\n%s", os.DevNull, code, ExitBadInput, out)
	}
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Errorf("%s: %v", os.DevNull, err)
	}
}

// Both builds' binaries stand for the ${LBC_BINARY} of the A/B strategy's command: unset, it is not
// what the gate complains of (here the binaries themselves, which do not exist, are).
func TestGateBinariesStandForTheScenariosBinary(t *testing.T) {
	t.Setenv("LBC_CRDS", t.TempDir())
	t.Setenv("LBC_BINARY", "")
	os.Unsetenv("LBC_BINARY")
	missing := filepath.Join(t.TempDir(), "missing")
	code, out := execute(t, "gate", "-f", "../../../scenarios/lbc/gate.yaml", "--baseline-binary", missing, "--candidate-binary", missing)
	if code != ExitBadInput || !strings.Contains(out, "--baseline-binary: stat "+missing) || strings.Contains(out, "LBC_BINARY") {
		t.Errorf("exit %d, want %d naming the missing --baseline-binary and not LBC_BINARY:\n%s", code, ExitBadInput, out)
	}
}

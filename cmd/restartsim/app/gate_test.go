package app

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/restartsim/restartsim/reports/results"
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
timeline: []
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

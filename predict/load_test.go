package predict

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The quickstart's no-checkpoint restart, recorded: 200 bindings re-read one describe each behind
// the 10/s describe bucket. The model must explain it and find that queue.
func TestRecordedQuickstartIsExplained(t *testing.T) {
	run, err := Load("testdata/quickstart/results.json", "no-checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Kinds) != 1 || m.Kinds[0].Name != "targetgroup" || m.Kinds[0].Objects != 200 || !m.Kinds[0].Scales {
		t.Fatalf("kinds %+v", m.Kinds)
	}
	if d := m.Kinds[0].PerObject[0]; d.Bucket != "elbv2/describe" || math.Abs(d.Calls-1) > 0.05 {
		t.Errorf("per object %+v, want about one elbv2/describe", m.Kinds[0].PerObject)
	}
	if b := m.Buckets["elbv2/describe"]; b.Rate != 10 || b.Burst != 40 {
		t.Errorf("describe bucket %+v, want the documented 10/s burst 40", b)
	}
	check, err := m.Explain()
	if err != nil {
		t.Fatal(err)
	}
	if len(check.Changes) != 5 {
		t.Errorf("%d changes placed, want the run's 5", len(check.Changes))
	}
	f, err := m.Forecast(2000, 200, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Ten times the describes behind the same bucket: the re-read takes about ten times as long.
	if ratio := (f.Steady - f.Start) / (m.Drain + m.Settle); ratio < 8 || ratio > 12 {
		t.Errorf("re-read at 2000 is %.1f× the run's, want about 10×", ratio)
	}
}

// The checkpoint strategy's restart re-reads five bindings: not a queue the buckets explain, and it
// is refused rather than scaled.
func TestRecordedCheckpointIsRefused(t *testing.T) {
	run, err := Load("testdata/quickstart/results.json", "checkpoint")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Fit(run)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Explain()
	var why *Unexplained
	if !errors.As(err, &why) {
		t.Fatalf("Explain = %v, want Unexplained", err)
	}
}

func TestLoadNamesWhatIsMissing(t *testing.T) {
	if _, err := Load("testdata/quickstart/results.json", ""); err == nil {
		t.Error("no error for a run of three strategies without --strategy")
	}
	if _, err := Load("testdata/quickstart/results.json", "nope"); err == nil {
		t.Error("no error for an unknown strategy")
	}
	if _, err := Load("testdata/quickstart/results.json", "compact"); err == nil {
		t.Error("no error for a strategy without its call log")
	}
	dir := t.TempDir()
	data, err := os.ReadFile("testdata/quickstart/results.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "results.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "checkpoint"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "checkpoint", "aws-calls.jsonl"), []byte("{\"seq\":1}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(filepath.Join(dir, "results.json"), "checkpoint")
	if err == nil || !strings.Contains(err.Error(), "aws-calls.jsonl:2") {
		t.Errorf("Load = %v, want the call log's line 2 named", err)
	}
}

package app

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// execute runs the CLI like Main, capturing stdout, and returns the exit code.
func execute(t *testing.T, args ...string) (int, string) {
	t.Helper()
	root := NewRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return ExitOK, out.String()
	}
	out.WriteString("error: " + err.Error() + "\n")
	var exitErr *ExitError
	if errors.As(err, &exitErr) {
		return exitErr.Code, out.String()
	}
	return ExitBadInput, out.String()
}

// copyGolden copies the reports golden inputs into a fresh directory.
func copyGolden(t *testing.T) (dir, resultsPath string) {
	t.Helper()
	dir = t.TempDir()
	for _, name := range []string{"results.json", TimeseriesFile} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "reports", "testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, filepath.Join(dir, "results.json")
}

func TestReportCommand(t *testing.T) {
	_, res := copyGolden(t)
	out := filepath.Join(t.TempDir(), "report")
	code, stdout := execute(t, "report", "-i", res, "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	for _, name := range []string{"report.html", "aws-calls.png", "change-latency-cdf.png", "queue-depths.png", "restart-cost.png", "ttfmr-sweep.png"} {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestReportCommandDefaultsToInputDir(t *testing.T) {
	dir, res := copyGolden(t)
	if code, stdout := execute(t, "report", "-i", res); code != ExitOK {
		t.Fatalf("exit %d:\n%s", code, stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Fatal(err)
	}
}

func TestReportCommandBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"report"},
		{"report", "-i", filepath.Join(t.TempDir(), "missing.json")},
	} {
		if code, stdout := execute(t, args...); code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d:\n%s", args, code, ExitBadInput, stdout)
		}
	}
}

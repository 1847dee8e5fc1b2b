package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
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

// corrupt writes a copy of the golden results changed by mutate, beside the golden timeseries.
func corrupt(t *testing.T, mutate func(r *results.Results)) string {
	t.Helper()
	dir, res := copyGolden(t)
	r, err := results.Load(res)
	if err != nil {
		t.Fatal(err)
	}
	mutate(r)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "results.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// Out-of-range figures are bad input, named by file and field (or line), before anything is
// drawn: a huge time once kept the axis ticks from ending, a far second the time bins, and
// thousands of strategies made a 25 GB image.
func TestReportCommandRefusesOutOfRangeInput(t *testing.T) {
	huge := 1e300
	for _, tt := range []struct {
		name string
		path func(t *testing.T) string
		want []string
	}{
		{"huge time", func(t *testing.T) string {
			return corrupt(t, func(r *results.Results) { r.Strategies[0].Restart.StoppedSeconds = huge })
		}, []string{"results.json: corrupted: strategies[0].restart.stoppedSeconds: 1e+300 s is more than 30 days"}},
		{"negative latency quantile", func(t *testing.T) string {
			return corrupt(t, func(r *results.Results) { r.Strategies[1].Summary.BlindTime.P95 = -100 })
		}, []string{"strategies[1].summary.blindTime.p95: -100 is negative"}},
		{"thousands of strategies", func(t *testing.T) string {
			return corrupt(t, func(r *results.Results) {
				for len(r.Strategies) < 20000 {
					r.Strategies = append(r.Strategies, results.Strategy{Name: fmt.Sprint("s", len(r.Strategies))})
				}
			})
		}, []string{"strategies: 20000 strategies, more than 100"}},
		{"far second", func(t *testing.T) string {
			dir, res := copyGolden(t)
			appendFile(t, filepath.Join(dir, TimeseriesFile), "checkpoint,1000000000,workqueue_depth,1\n")
			return res
		}, []string{TimeseriesFile + ": line ", ": second: 1000000000 is outside [0, 2592000]"}},
		{"endless device", func(t *testing.T) string { return "/dev/zero" }, []string{"/dev/zero is a device, not a regular file"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := tt.path(t)
			if _, err := os.Stat(path); err != nil {
				t.Skip(err)
			}
			out := filepath.Join(t.TempDir(), "report")
			code, stdout := execute(t, "report", "-f", path, "-o", out)
			if code != ExitBadInput {
				t.Fatalf("exit %d, want %d:\n%s", code, ExitBadInput, stdout)
			}
			for _, want := range tt.want {
				if !strings.Contains(stdout, want) {
					t.Errorf("output lacks %q:\n%s", want, stdout)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s created for bad input", out)
			}
		})
	}
}

// A report that cannot be written is exit 1, not bad input.
func TestReportCommandWriteFailure(t *testing.T) {
	_, res := copyGolden(t)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout := execute(t, "report", "-f", res, "-o", filepath.Join(file, "report"))
	if code != ExitFailure || !strings.Contains(stdout, "writing "+filepath.Join(file, "report")) {
		t.Fatalf("exit %d, want %d naming the directory:\n%s", code, ExitFailure, stdout)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(text); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs the command line args and returns its exit code, standard output and error text.
func runCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	root := NewRootCommand()
	var stdout bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs(args)
	err := root.ExecuteContext(context.Background())
	if err == nil {
		return ExitOK, stdout.String(), ""
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code, stdout.String(), err.Error()
	}
	return ExitBadInput, stdout.String(), err.Error()
}

// expectations are a bad scenario's "# want: TEXT" (must appear in the error) and "# not: TEXT"
// (must not) lines.
func expectations(t *testing.T, path string) (want, not []string) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if w, ok := strings.CutPrefix(line, "# want: "); ok {
			want = append(want, w)
		}
		if n, ok := strings.CutPrefix(line, "# not: "); ok {
			not = append(not, n)
		}
	}
	if len(want) == 0 {
		t.Fatalf("%s: no # want: line", path)
	}
	return want, not
}

// Every bad scenario of testdata/bad is refused, with exit 2, by validate and by simulate before
// it starts, with the same problems, in under a second, and nothing is created.
func TestBadScenarios(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	if len(files) == 0 {
		t.Fatal("no bad scenarios")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			want, not := expectations(t, file)
			out := t.TempDir()
			start := time.Now()
			code, _, verr := runCLI(t, "validate", "-f", file)
			if took := time.Since(start); took > time.Second && !raceEnabled {
				t.Errorf("validate took %v, want under 1s", took)
			}
			if code != ExitBadInput {
				t.Fatalf("validate: exit %d, want %d (%s)", code, ExitBadInput, verr)
			}
			for _, w := range want {
				if !strings.Contains(verr, w) {
					t.Errorf("validate's error lacks %q:\n%s", w, verr)
				}
			}
			for _, n := range not {
				if strings.Contains(verr, n) {
					t.Errorf("validate's error has %q:\n%s", n, verr)
				}
			}
			code, _, serr := runCLI(t, "simulate", "-f", file, "--out", out)
			if code != ExitBadInput || serr != verr {
				t.Errorf("simulate: exit %d, error\n%s\nwant exit %d and validate's error\n%s", code, serr, ExitBadInput, verr)
			}
			code, _, derr := runCLI(t, "simulate", "--dry-run", "-f", file, "--out", out)
			if code != ExitBadInput || derr != verr {
				t.Errorf("simulate --dry-run: exit %d, error %s", code, derr)
			}
			if entries, _ := os.ReadDir(out); len(entries) > 0 {
				t.Errorf("the output folder holds %d entries, want none", len(entries))
			}
		})
	}
}

// --format json lists every problem with its place and field, and [] for a valid file.
func TestValidateJSON(t *testing.T) {
	code, stdout, _ := runCLI(t, "validate", "-f", "testdata/bad/three-mistakes.yaml", "--format", "json")
	if code != ExitBadInput {
		t.Fatalf("exit %d, want %d", code, ExitBadInput)
	}
	var got []problem
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("%v: %s", err, stdout)
	}
	fields := map[string]problem{}
	for _, p := range got {
		fields[p.Field] = p
	}
	for _, f := range []string{"thresholds[0].metric", "fleet.objects[0].ready", "timeline[1].mutations[0]"} {
		p, ok := fields[f]
		if !ok || p.File != "testdata/bad/three-mistakes.yaml" || p.Line < 1 || p.Column < 1 || p.Message == "" {
			t.Errorf("field %s: got %+v", f, p)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d problems, want 3: %+v", len(got), got)
	}
	code, stdout, err := runCLI(t, "validate", "-f", "../../../scenarios/quickstart.yaml", "--format", "json")
	if code != ExitOK || strings.TrimSpace(stdout) != "[]" {
		t.Errorf("a valid file: exit %d, output %q, error %s", code, stdout, err)
	}
}

// A valid scenario passes validate and simulate --dry-run, and the dry run starts and creates
// nothing.
func TestValidateValid(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{
		{"validate", "-f", "../../../scenarios/quickstart.yaml"},
		{"simulate", "--dry-run", "-f", "../../../scenarios/quickstart.yaml", "--out", out},
	} {
		code, stdout, err := runCLI(t, args...)
		if code != ExitOK || !strings.Contains(stdout, "valid (scenario quickstart") {
			t.Errorf("%v: exit %d, output %q, error %s", args, code, stdout, err)
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the dry run made %s (%v)", out, err)
	}
}

// withStdin makes path the process's standard input until the test ends.
func withStdin(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdin
	os.Stdin = f
	t.Cleanup(func() { os.Stdin = old; f.Close() })
}

// -f - reads the scenario, or with gate and report a results document, from standard input.
func TestStdin(t *testing.T) {
	withStdin(t, "testdata/bad/three-mistakes.yaml")
	code, _, verr := runCLI(t, "validate", "-f", "-")
	if code != ExitBadInput || !strings.Contains(verr, "<stdin>:27:6: thresholds[0].metric") {
		t.Errorf("validate: exit %d, error %s", code, verr)
	}
	withStdin(t, "testdata/bad/three-mistakes.yaml")
	code, _, serr := runCLI(t, "simulate", "-f", "-", "--out", t.TempDir())
	if code != ExitBadInput || serr != verr {
		t.Errorf("simulate: exit %d, error %s", code, serr)
	}
	withStdin(t, "testdata/bad/three-mistakes.yaml")
	if code, _, gerr := runCLI(t, "gate", "-f", "-"); code != ExitBadInput || !strings.Contains(gerr, "<stdin>:27:6: thresholds[0].metric") {
		t.Errorf("gate with a scenario: exit %d, error %s", code, gerr)
	}

	_, res := copyGolden(t)
	base := filepath.Join(t.TempDir(), "base.json")
	withStdin(t, res)
	if code, out, err := runCLI(t, "gate", "-f", "-", "--baseline", base, "--update-baseline"); code != ExitOK {
		t.Fatalf("gate --update-baseline from stdin: exit %d %s %s", code, out, err)
	}
	withStdin(t, res)
	if code, out, err := runCLI(t, "gate", "-f", "-", "--baseline", base); code != ExitOK || !strings.Contains(out, "gate passed") {
		t.Errorf("gate from stdin: exit %d %s %s", code, out, err)
	}
	dir := t.TempDir()
	withStdin(t, res)
	if code, out, err := runCLI(t, "report", "-f", "-", "-o", dir); code != ExitOK {
		t.Errorf("report from stdin: exit %d %s %s", code, out, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "report.html")); err != nil {
		t.Error(err)
	}
	if code, _, err := runCLI(t, "report", "-f", "-"); code != ExitBadInput || !strings.Contains(err, "needs -o DIR") {
		t.Errorf("report -f - without -o: exit %d %s", code, err)
	}
}

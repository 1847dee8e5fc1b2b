package app

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/restartsim/restartsim/internal/outfile/outfiletest"
)

// predict refuses a size or an order count past its bounds with exit 2 before it reads anything, so
// neither can run out of memory (--size 1e12 did) or compute for minutes (--orders 1e8 did).
func TestPredictBounds(t *testing.T) {
	results := "../../../predict/testdata/quickstart/results.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--size", "1000000000000"}, "--size 1000000000000: a fleet of 1 to 10000000"},
		{[]string{"--size", "10000001"}, "--size 10000001"},
		{[]string{"--size", "0"}, "--size 0"},
		{[]string{"--size", "1000", "--orders", "100000000"}, "--orders 100000000: must be 1 to 10000"},
		{[]string{"--size", "1000", "--orders", "0"}, "--orders 0"},
	} {
		start := time.Now()
		code, _, err := runCLI(t, append([]string{"predict", "-f", results}, tc.args...)...)
		if code != ExitBadInput || !strings.Contains(err, tc.want) {
			t.Errorf("predict %v: exit %d, %q; want exit %d naming %q", tc.args, code, err, ExitBadInput, tc.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("predict %v took %v to refuse", tc.args, d)
		}
	}
}

// --format json's error counts its problems in English.
func TestValidateJSONCountsOneProblem(t *testing.T) {
	_, _, err := runCLI(t, "validate", "-f", "testdata/bad/certdir-command.yaml", "--format", "json")
	if strings.Contains(err, "1 problems") {
		t.Errorf("error %q says \"1 problems\"", err)
	}
	if !strings.HasSuffix(err, ": 1 problem") {
		t.Errorf("error %q does not count the problems", err)
	}
}

// A named pipe among the files a command reads is refused at once with exit 2, where opening it used to
// wait for a writer forever (and ignore the first SIGTERM).
func TestNamedPipesAreRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(dir, "crds")
	run := filepath.Join(dir, "run")
	for _, d := range []string{crds, filepath.Join(run, "checkpoint")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(crds, "pipe.yaml"), 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	if err := syscall.Mkfifo(filepath.Join(run, "checkpoint", "aws-calls.jsonl"), 0o600); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile("../../../predict/testdata/quickstart/results.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(run, "results.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "--crds", crds, "-o", filepath.Join(dir, "out.yaml")},
		{"predict", "-f", filepath.Join(run, "results.json"), "--strategy", "checkpoint", "--size", "1000"},
	} {
		type outcome struct {
			code int
			err  string
		}
		done := make(chan outcome, 1)
		go func() { code, _, err := runCLI(t, args...); done <- outcome{code, err} }()
		select {
		case o := <-done:
			if o.code != ExitBadInput || !strings.Contains(o.err, "is a named pipe, not a regular file") {
				t.Errorf("%v: exit %d, %q; want exit %d refusing the named pipe", args, o.code, o.err, ExitBadInput)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v still blocked on a named pipe after 20 s", args)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out.yaml")); !os.IsNotExist(err) {
		t.Errorf("init wrote its output although it refused its input: %v", err)
	}
}

// init's --count has validate's bounds, and only the default-sized count is called small.
func TestInitCountBounds(t *testing.T) {
	crds := "../../../controller/config/crd"
	for _, n := range []string{"0", "-1", "1000000000"} {
		code, _, err := runCLI(t, "init", "--crds", crds, "--count", n)
		if code != ExitBadInput || !strings.Contains(err, "--count "+n+": must be 1 to 100000") {
			t.Errorf("init --count %s: exit %d, %q", n, code, err)
		}
	}
	code, out, err := runCLI(t, "init", "--crds", crds, "--count", "2000")
	if code != ExitOK || !strings.Contains(out, "count: 2000 # as --count asked") || strings.Contains(out, "small for a first run") {
		t.Errorf("init --count 2000: exit %d, %q\n%s", code, err, out)
	}
}

// init -o writes whole or not at all: on a full disk --force keeps the old file as it was and a fresh -o
// leaves no file behind (the next run would refuse it as existing); both exit 1.
func TestInitOutputOnAFullDisk(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.yaml")
	if err := os.WriteFile(old, []byte("the old scenario\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		out   string
		force bool
	}{{old, true}, {filepath.Join(dir, "fresh.yaml"), false}} {
		o := &initOptions{CRDs: []string{"../../../controller/config/crd"}, Count: 3, Out: tc.out, Force: tc.force,
			fsys: outfiletest.FullDisk{Full: func(string) bool { return true }}}
		cmd := &cobra.Command{}
		cmd.SetContext(context.Background())
		cmd.SetErr(io.Discard)
		err := o.run(cmd)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitFailure || !strings.Contains(err.Error(), "no space left on device") {
			t.Errorf("-o %s on a full disk: %v, want exit %d naming the full disk", tc.out, err, ExitFailure)
		}
	}
	if data, err := os.ReadFile(old); err != nil || string(data) != "the old scenario\n" {
		t.Errorf("--force on a full disk left %q, %v; want the old file untouched", data, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("files left: %v, want only old.yaml", entries)
	}
}

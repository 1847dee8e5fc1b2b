// Command report-probes feeds `restartsim report` and `restartsim gate` corrupted copies of the
// golden results.json and timeseries.csv (reports/testdata), one per probe, and prints a Markdown
// table of what each did: exit code, wall time and peak resident memory (VmHWM, sampled every
// 10 ms). Each probe runs with a
// time limit and under an address-space limit (prlimit), so a build that hangs or runs out of
// memory on one is stopped and reported rather than taking the machine with it.
//
//	go run ./hack/report-probes -binary bin/restartsim [-timeout 30s] [-memory 4GiB] [-run far-second]
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	binary := flag.String("binary", "bin/restartsim", "the restartsim build to probe")
	testdata := flag.String("testdata", "reports/testdata", "directory of the golden results.json and timeseries.csv")
	timeout := flag.Duration("timeout", 30*time.Second, "time limit per probe")
	memory := flag.Int64("memory", 4<<30, "address-space limit per probe, in bytes")
	run := flag.String("run", "", "only the probes whose name matches this regular expression")
	flag.Parse()
	match, err := regexp.Compile(*run)
	if err != nil {
		fail(err)
	}
	golden, err := os.ReadFile(filepath.Join(*testdata, "results.json"))
	if err != nil {
		fail(err)
	}
	series, err := os.ReadFile(filepath.Join(*testdata, "timeseries.csv"))
	if err != nil {
		fail(err)
	}
	work, err := os.MkdirTemp("", "report-probes-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(work)
	fmt.Println("| probe | command | exit | time | peak RSS | first line of stderr |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, p := range probes() {
		if !match.MatchString(p.name) {
			continue
		}
		dir := filepath.Join(work, p.name)
		if err := p.prepare(dir, golden, series); err != nil {
			fail(fmt.Errorf("%s: %w", p.name, err))
		}
		args := p.args
		if args == nil {
			args = []string{"report", "-f", "results.json", "-o", "out"}
		}
		r := measure(dir, *binary, args, *timeout, *memory)
		fmt.Printf("| %s | `%s` | %s | %s | %s | %s |\n", p.name, p.what, r.exit, r.wall, r.rss, r.stderr)
		_ = os.RemoveAll(dir)
	}
}

type result struct{ exit, wall, rss, stderr string }

// measure runs binary in dir under the limits.
func measure(dir, binary string, args []string, timeout time.Duration, memory int64) result {
	abs, err := filepath.Abs(binary)
	if err != nil {
		fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "prlimit", append([]string{"--as=" + strconv.FormatInt(memory, 10), "--", abs}, args...)...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	peak := watchPeakRSS(cmd.Process.Pid)
	err = cmd.Wait()
	r := result{wall: fmt.Sprintf("%.2f s", time.Since(start).Seconds()), rss: fmt.Sprintf("%d MB", <-peak/1000)}
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.exit = fmt.Sprintf("killed at %s", timeout)
	case err == nil:
		r.exit = "0"
	case errors.As(err, &exitErr):
		r.exit = strconv.Itoa(exitErr.ExitCode())
	default:
		fail(err)
	}
	line, _, _ := strings.Cut(stderr.String(), "\n")
	r.stderr = strings.ReplaceAll(abbreviate(strings.TrimPrefix(line, "error: ")), "|", `\|`)
	return r
}

// watchPeakRSS reads the process's peak resident memory (VmHWM, kB) every 10 ms until it is gone,
// then sends the last value read. The rusage of wait4 would not do: a child forked from this
// program starts with this program's peak, which the generated inputs raise.
func watchPeakRSS(pid int) <-chan int64 {
	out := make(chan int64, 1)
	go func() {
		var peak int64
		for {
			data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
			if err != nil || bytes.Contains(data, []byte("State:\tZ")) {
				out <- peak
				return
			}
			for _, line := range strings.Split(string(data), "\n") {
				if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
					kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
					peak = max(peak, kb)
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	return out
}

// abbreviate keeps a table cell short.
func abbreviate(s string) string {
	if len(s) > 110 {
		return s[:110] + "…"
	}
	return s
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report-probes:", err)
	os.Exit(1)
}

package app

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/poll"
	"github.com/restartsim/restartsim/internal/testenv"
)

const sigkillChildEnv = "RESTARTSIM_SIGKILL_TEST_CHILD"

// sigkillScenario is a small run whose first strategy waits long enough to be killed in.
const sigkillScenario = `apiVersion: restartsim/v1
kind: Scenario
name: killed
seed: 3
timeScale: 10
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 8, podsPerService: 2, nodes: 3}
controller:
  strategies: [{name: first, checkpoint: annotation}, {name: second, checkpoint: none}]
timeline:
  - {action: wait, duration: 10m}
`

// TestSIGKILLedSimulateLeavesNothing kills `restartsim simulate` with SIGKILL while its first strategy
// runs and wants its kube-apiserver and etcd gone, their ports closed, nothing in its $TMPDIR, and the
// output folder marked INCOMPLETE without etcd data.
func TestSIGKILLedSimulateLeavesNothing(t *testing.T) {
	if args := os.Getenv(sigkillChildEnv); args != "" {
		os.Exit(Main(strings.Split(args, "\n")))
	}
	testenv.RequireAssets(t)
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	dir := t.TempDir()
	file, out, tmp := filepath.Join(dir, "killed.yaml"), filepath.Join(dir, "out"), filepath.Join(dir, "tmp")
	if err := os.WriteFile(file, []byte(sigkillScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(tmp, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLedSimulateLeavesNothing$", "-test.timeout=5m")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp,
		sigkillChildEnv+"="+strings.Join([]string{"simulate", "-f", file, "-o", out, "--no-report"}, "\n"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill() }()
	// The first strategy has started once its AWS call log exists; its control plane serves once
	// both processes listen.
	var runDir string
	var pids []int
	var addrs []string
	err := poll.Until(context.Background(), 3*time.Minute, poll.Every(200*time.Millisecond), func() (bool, error) {
		if runDir == "" {
			logs, _ := filepath.Glob(filepath.Join(out, "killed", "*", "first", "aws-calls.jsonl"))
			if len(logs) == 0 {
				return false, nil
			}
			runDir = filepath.Dir(filepath.Dir(logs[0]))
		}
		pids, addrs = controlPlaneOf(cmd.Process.Pid)
		return len(pids) == 2 && len(addrs) == 2, nil
	})
	if err != nil {
		t.Fatalf("within 3 minutes: run folder %q, control plane %v listening on %v, want kube-apiserver and etcd: %v", runDir, pids, addrs, err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	var left []string
	_ = poll.Until(context.Background(), 15*time.Second, poll.Every(200*time.Millisecond), func() (bool, error) {
		left = leftBehind(pids, addrs, tmp, runDir)
		return len(left) == 0, nil
	})
	if len(left) > 0 {
		for _, pid := range pids {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		t.Fatalf("15 s after SIGKILL: %s", strings.Join(left, ", "))
	}
}

// controlPlaneOf lists parent's kube-apiserver and etcd children and the addresses they serve on.
func controlPlaneOf(parent int) (pids []int, addrs []string) {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, st := range stats {
		data, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		s := string(data)
		comm, f := s[strings.IndexByte(s, '(')+1:strings.LastIndexByte(s, ')')], strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) < 2 || f[1] != strconv.Itoa(parent) || comm != "kube-apiserver" && comm != "etcd" {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(st)))
		pids = append(pids, pid)
		cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(st), "cmdline"))
		for _, arg := range strings.Split(string(cmdline), "\x00") {
			switch {
			case strings.HasPrefix(arg, "--secure-port="):
				addrs = append(addrs, "127.0.0.1:"+strings.TrimPrefix(arg, "--secure-port="))
			case strings.HasPrefix(arg, "--listen-client-urls="):
				addrs = append(addrs, strings.TrimPrefix(strings.TrimPrefix(arg, "--listen-client-urls="), "http://"))
			}
		}
	}
	return pids, addrs
}

// leftBehind says what of a killed run remains.
func leftBehind(pids []int, addrs []string, tmp, runDir string) []string {
	var left []string
	for _, pid := range pids {
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(b)[strings.LastIndexByte(string(b), ')')+1:]); len(f) > 0 && f[0] != "Z" {
				left = append(left, "process "+strconv.Itoa(pid))
			}
		}
	}
	for _, a := range addrs {
		if c, err := net.DialTimeout("tcp", a, 200*time.Millisecond); err == nil {
			c.Close()
			left = append(left, a+" listening")
		}
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		left = append(left, "$TMPDIR/"+e.Name())
	}
	if etcd, _ := filepath.Glob(filepath.Join(runDir, "*", "etcd")); len(etcd) > 0 {
		left = append(left, strings.Join(etcd, " "))
	}
	if _, err := os.Stat(filepath.Join(runDir, "INCOMPLETE")); err != nil {
		left = append(left, "no INCOMPLETE marker")
	}
	return left
}

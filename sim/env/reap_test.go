package env

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// leftovers is what a started control plane holds: processes, listening addresses, a directory of keys.
type leftovers struct {
	PIDs  []int
	Addrs []string
	Dir   string
}

const reapChildEnv = "RESTARTSIM_REAP_TEST_CHILD"

// TestSIGKILLLeavesNothing starts envtest in a child process, kills the child with SIGKILL (as the OOM
// killer or a CI timeout would) and wants kube-apiserver and etcd gone, their ports closed and nothing
// left in the child's $TMPDIR.
func TestSIGKILLLeavesNothing(t *testing.T) {
	if os.Getenv(reapChildEnv) != "" {
		runReapChild(t)
		return
	}
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	tmp := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSIGKILLLeavesNothing$", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), reapChildEnv+"="+t.TempDir(), "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var got leftovers
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "leftovers "); ok {
			if err := json.Unmarshal([]byte(line), &got); err != nil {
				t.Fatal(err)
			}
			break
		}
	}
	if len(got.PIDs) != 2 || len(got.Addrs) != 2 || got.Dir == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("the child reported %+v, want two processes, two addresses and a directory", got)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && remaining(got, tmp) != "" {
		time.Sleep(100 * time.Millisecond)
	}
	if left := remaining(got, tmp); left != "" {
		for _, pid := range got.PIDs {
			_ = syscall.Kill(-pid, syscall.SIGKILL)
		}
		t.Fatalf("15 s after SIGKILL: %s", left)
	}
}

// remaining describes what of l is still there ("" when nothing is).
func remaining(l leftovers, tmp string) string {
	var left []string
	for _, pid := range l.PIDs {
		if alive(pid) {
			left = append(left, fmt.Sprintf("process %d running", pid))
		}
	}
	for _, a := range l.Addrs {
		if c, err := net.DialTimeout("tcp", a, 200*time.Millisecond); err == nil {
			c.Close()
			left = append(left, a+" listening")
		}
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		left = append(left, filepath.Join(tmp, e.Name())+" exists")
	}
	return strings.Join(left, ", ")
}

// alive reports whether pid runs (a zombie waiting for a parent that does not reap it holds no port and
// no memory, so it counts as gone).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(data)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// runReapChild starts envtest, reports what it holds and waits to be killed.
func runReapChild(t *testing.T) {
	e, err := Start(context.Background(), Options{WorkDir: os.Getenv(reapChildEnv)})
	if err != nil {
		t.Fatal(err)
	}
	api, err := url.Parse(e.Config.Host)
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, p := range controlPlaneChildren() {
		pids = append(pids, p.pid)
	}
	l := leftovers{PIDs: pids, Addrs: []string{api.Host, e.testEnv.ControlPlane.Etcd.URL.Host}, Dir: e.reaper.dir}
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("leftovers %s\n", b)
	time.Sleep(time.Minute)
	t.Fatal("not killed within a minute")
}

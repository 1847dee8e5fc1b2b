package env

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

const watcherChildEnv = "RESTARTSIM_WATCHER_TEST_CHILD"

// TestWatcherActsWhenItsProcessIsKilled: a process killed by SIGKILL has its watched process group killed,
// the matching directories removed (a path with a space, a pattern matching two) and the note written;
// a released watch does nothing.
func TestWatcherActsWhenItsProcessIsKilled(t *testing.T) {
	if dir := os.Getenv(watcherChildEnv); dir != "" {
		runWatcherChild(dir)
		return
	}
	for _, killed := range []bool{true, false} {
		run := filepath.Join(t.TempDir(), "run dir")
		for _, d := range []string{"fleet-1/etcd", "fleet-2/etcd", "keep"} {
			if err := os.MkdirAll(filepath.Join(run, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestWatcherActsWhenItsProcessIsKilled$")
		cmd.Env = append(os.Environ(), watcherChildEnv+"="+run)
		if !killed {
			cmd.Env = append(cmd.Env, watcherChildEnv+"_RELEASE=1")
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		pid := 0
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "watched "); ok {
				pid, _ = strconv.Atoi(v)
				break
			}
		}
		if pid == 0 {
			t.Fatal("the child did not report its watched process")
		}
		if killed {
			_ = cmd.Process.Signal(syscall.SIGKILL)
		}
		_ = cmd.Wait()
		cleaned := func() bool {
			_, err1 := os.Stat(filepath.Join(run, "fleet-1", "etcd"))
			_, err2 := os.Stat(filepath.Join(run, "fleet-2", "etcd"))
			_, err3 := os.Stat(filepath.Join(run, "INCOMPLETE"))
			return !alive(pid) && os.IsNotExist(err1) && os.IsNotExist(err2) && err3 == nil
		}
		deadline := time.Now().Add(10 * time.Second)
		for killed && !cleaned() && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		if !killed {
			time.Sleep(500 * time.Millisecond) // time to act, were it going to
		}
		if cleaned() != killed {
			t.Errorf("killed %v: watched process alive %v, cleaned up %v", killed, alive(pid), cleaned())
		}
		if _, err := os.Stat(filepath.Join(run, "keep")); err != nil {
			t.Errorf("killed %v: an unwatched directory went: %v", killed, err)
		}
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
}

// runWatcherChild watches a sleeping process group and run's fleet data, then waits to be killed (or
// releases the watch and exits).
func runWatcherChild(run string) {
	sleeper := exec.Command("sleep", "60")
	sleeper.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := sleeper.Start(); err != nil {
		os.Exit(3)
	}
	w := StartWatcher()
	w.KillGroupOnCrash(sleeper.Process.Pid)
	w.RemoveOnCrash(filepath.Join(run, "fleet-*", "etcd"))
	w.NoteOnCrash(filepath.Join(run, "INCOMPLETE"))
	println := func(s string) { _, _ = os.Stdout.WriteString(s + "\n") }
	println("watched " + strconv.Itoa(sleeper.Process.Pid))
	if os.Getenv(watcherChildEnv+"_RELEASE") != "" {
		w.Release(true)
		os.Exit(0)
	}
	time.Sleep(time.Minute)
	os.Exit(4)
}

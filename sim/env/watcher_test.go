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

	"github.com/restartsim/restartsim/internal/testwait"
)

const watcherChildEnv = "RESTARTSIM_WATCHER_TEST_CHILD"

// TestWatcherActsWhenItsProcessIsKilled: a process killed by SIGKILL has its watched process group killed,
// the matching directories removed (a path with a space, a pattern matching two) and the note written;
// a released watch does nothing. Either way the test judges once the watcher has exited: it acts before
// it exits, or never.
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
		pid, watcher := 0, 0
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "watcher "); ok {
				watcher, _ = strconv.Atoi(v)
			}
			if v, ok := strings.CutPrefix(sc.Text(), "watched "); ok {
				pid, _ = strconv.Atoi(v)
				break
			}
		}
		if pid == 0 || watcher == 0 {
			t.Fatalf("the child did not report its watched process (%d) and its watcher (%d)", pid, watcher)
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
		testwait.Until(t, 10*time.Second, "the watcher to exit", func() bool { return !alive(watcher) })
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
	println("watcher " + strconv.Itoa(childOtherThan(sleeper.Process.Pid)))
	println("watched " + strconv.Itoa(sleeper.Process.Pid))
	if os.Getenv(watcherChildEnv+"_RELEASE") != "" {
		w.Release(true)
		os.Exit(0)
	}
	time.Sleep(time.Minute)
	os.Exit(4)
}

// childOtherThan is the pid of a child process of this one other than pid (0 when there is none): the
// watcher's /bin/sh, the only other process the watcher child starts.
func childOtherThan(pid int) int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, f := range stats {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		s := string(data)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // state, ppid, ...
		if len(fields) < 2 || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		if child, _ := strconv.Atoi(filepath.Base(filepath.Dir(f))); child != pid {
			return child
		}
	}
	return 0
}

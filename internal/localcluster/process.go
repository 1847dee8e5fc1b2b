package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/internal/poll"
)

// spawn starts a component in a session of its own, so that it outlives the command that started
// it and a terminal's ^C does not reach it, with its output in Dir/logs/<name>.log.
func (c *Cluster) spawn(o Options, name string, args ...string) error {
	// Resolved, so that alive can compare it with /proc/<pid>/exe.
	bin, err := filepath.EvalSymlinks(filepath.Join(o.AssetsDir, name))
	if err != nil {
		return err
	}
	logPath := filepath.Join(c.Dir, logDir, name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	defer logFile.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if o.DieWithCaller {
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", name, err)
	}
	c.Components = append(c.Components, Component{Name: name, PID: cmd.Process.Pid, Binary: bin, Args: args, Log: logPath})
	// Reap the process when it exits while this one still runs (tests, a failed Up); otherwise the
	// zombie would look alive to stop.
	go func() { _ = cmd.Wait() }()
	return c.save()
}

// alive reports whether the component's process still runs: the pid exists, is no zombie, and runs
// the component's binary (a recycled pid does not).
func (comp Component) alive() bool {
	if comp.PID <= 0 {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(comp.PID) + "/stat")
	if err != nil {
		return false
	}
	// The state follows the parenthesised command name, which may itself hold spaces.
	if i := bytes.LastIndexByte(stat, ')'); i < 0 || i+2 >= len(stat) || stat[i+2] == 'Z' {
		return false
	}
	exe, err := os.Readlink("/proc/" + strconv.Itoa(comp.PID) + "/exe")
	if err != nil {
		// Not ours to inspect: assume the pid was recycled by another user's process.
		return false
	}
	return strings.TrimSuffix(exe, " (deleted)") == comp.Binary
}

// stop sends SIGTERM to the components in reverse start order, waits up to timeout for each, then
// sends SIGKILL to what is left.
func (c *Cluster) stop(timeout time.Duration, log logr.Logger) error {
	var errs []error
	for i := len(c.Components) - 1; i >= 0; i-- {
		comp := c.Components[i]
		if !comp.alive() {
			continue
		}
		log.Info("stopping "+comp.Name, "pid", comp.PID)
		if err := signalGroup(comp.PID, syscall.SIGTERM); err != nil {
			errs = append(errs, fmt.Errorf("stopping %s: %w", comp.Name, err))
			continue
		}
		if waitExit(comp, timeout) {
			continue
		}
		log.Info(comp.Name+" did not stop; killing it", "pid", comp.PID, "waited", timeout)
		if err := signalGroup(comp.PID, syscall.SIGKILL); err != nil {
			errs = append(errs, fmt.Errorf("killing %s: %w", comp.Name, err))
			continue
		}
		if !waitExit(comp, 5*time.Second) {
			errs = append(errs, fmt.Errorf("%s (pid %d) survived SIGKILL", comp.Name, comp.PID))
		}
	}
	return errors.Join(errs...)
}

// signalGroup signals the component's session (it leads its own process group).
func signalGroup(pid int, sig syscall.Signal) error {
	err := syscall.Kill(-pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

func waitExit(comp Component, timeout time.Duration) bool {
	err := poll.Until(context.Background(), timeout, poll.Every(50*time.Millisecond), func() (bool, error) {
		return !comp.alive(), nil
	})
	if err != nil {
		return false
	}
	// Dead; give whoever reaps it (init, once `cluster up` has exited) up to 2 s, so the pid is gone
	// when Down returns rather than left as a zombie. A pid still there after that is left alone.
	_ = poll.Until(context.Background(), reapWait, poll.Every(50*time.Millisecond), func() (bool, error) {
		_, err := os.Stat("/proc/" + strconv.Itoa(comp.PID))
		return err != nil, nil
	})
	return true
}

// reapWait bounds the wait for a dead component's pid to be reaped: 40 looks 50 ms apart.
const reapWait = 39 * 50 * time.Millisecond

// lastLines returns the file's last n lines, indented, for an error message.
func lastLines(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "; its last lines:\n  " + strings.Join(lines, "\n  ")
}

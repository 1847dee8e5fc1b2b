package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// reaper makes one envtest control plane die with this process: envtest starts kube-apiserver and etcd in
// process groups of their own, so after an unclean exit (SIGKILL, the OOM killer) they would keep running,
// listening and holding TLS keys.
type reaper struct {
	w    *Watcher
	mu   sync.Mutex
	pids map[int]bool
	// killing is set when a start is abandoned: every control plane process, those it starts later
	// included, is killed.
	killing bool
	// dir is the control plane's private temporary directory (API server certificates and keys, etcd's
	// data unless the caller gave a directory, webhook certificates); Stop removes it, the watcher removes
	// it after a crash.
	dir string
}

// startReaper creates the control plane's private directory and its watcher.
func startReaper() (*reaper, error) {
	dir, err := os.MkdirTemp(tempDir(), "restartsim-envtest-")
	if err != nil {
		return nil, err
	}
	r := &reaper{w: StartWatcher(), dir: dir, pids: map[int]bool{}}
	r.w.RemoveOnCrash(dir)
	return r, nil
}

// reapStarts makes one start at a time see its own TMPDIR.
var reapStarts sync.Mutex

// tempDir is this process's temporary directory, never a start's private TMPDIR of the moment:
// environments started side by side must not make their directories inside another's, which
// goes when that one stops.
func tempDir() string {
	reapStarts.Lock()
	defer reapStarts.Unlock()
	return os.TempDir()
}

// watchStart runs start with TMPDIR set to the private directory, so that every directory envtest creates
// (API server certificates and keys, etcd's data, webhook serving certificates) is inside it, and
// registers the control plane's processes while start runs (a kill in the middle of it leaves nothing
// either) and once more when it returns. envtest's start takes no context and waits up to its timeouts
// for a dead API server: should ctx end first, watchStart kills the control plane (and any process start
// launches later) and returns an error wrapping ctx.Err() at once; abandon runs once start has returned.
func (r *reaper) watchStart(ctx context.Context, start func() error, abandon func()) error {
	result := make(chan error, 1)
	go func() { result <- r.runStart(start) }()
	select {
	case err := <-result:
		return err
	case <-ctx.Done():
	}
	r.mu.Lock()
	r.killing = true
	r.mu.Unlock()
	r.adopt()
	go func() {
		<-result //nolint:errcheck // the caller has ctx's error; start's own no longer matters
		abandon()
	}()
	return fmt.Errorf("%w: %w", errStartAbandoned, ctx.Err())
}

// errStartAbandoned marks a start given up because its context ended.
var errStartAbandoned = errors.New("start abandoned")

func (r *reaper) runStart(start func() error) error {
	reapStarts.Lock()
	defer reapStarts.Unlock()
	prev, had := os.LookupEnv("TMPDIR")
	if err := os.Setenv("TMPDIR", r.dir); err != nil {
		return err
	}
	defer func() {
		if had {
			_ = os.Setenv("TMPDIR", prev)
		} else {
			_ = os.Unsetenv("TMPDIR")
		}
	}()
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			r.adopt()
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	err := start()
	close(stop)
	<-done
	r.adopt()
	return err
}

// adopt registers every kube-apiserver and etcd child of this process not yet registered, and kills
// them all once a start was abandoned.
func (r *reaper) adopt() {
	for _, p := range controlPlaneChildren() {
		r.mu.Lock()
		seen, kill := r.pids[p.pid], r.killing
		r.pids[p.pid] = true
		r.mu.Unlock()
		if !seen {
			r.w.KillGroupOnCrash(p.pid)
		}
		if kill {
			_ = syscall.Kill(-p.pid, syscall.SIGKILL) // envtest starts each in a process group of its own
			_ = syscall.Kill(p.pid, syscall.SIGKILL)
		}
	}
}

// release ends the watch and removes the directory. After a clean stop the watcher exits without killing
// anything; otherwise (stopped is false) it kills what is left of the control plane.
func (r *reaper) release(stopped bool) {
	if r == nil {
		return
	}
	r.w.Release(stopped)
	_ = os.RemoveAll(r.dir)
}

// childProcess is a kube-apiserver or etcd process started by this one.
type childProcess struct {
	pid  int
	name string
}

// controlPlaneChildren lists the kube-apiserver and etcd processes whose parent is this process (from
// /proc; none where there is no /proc).
func controlPlaneChildren() []childProcess {
	var out []childProcess
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	me := strconv.Itoa(os.Getpid())
	for _, st := range stats {
		data, err := os.ReadFile(st)
		if err != nil {
			continue
		}
		s := string(data)
		open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
		if open < 0 || end < open {
			continue
		}
		comm, f := s[open+1:end], strings.Fields(s[end+1:])
		if len(f) < 2 || f[1] != me || comm != "kube-apiserver" && comm != "etcd" {
			continue
		}
		if pid, err := strconv.Atoi(filepath.Base(filepath.Dir(st))); err == nil {
			out = append(out, childProcess{pid: pid, name: comm})
		}
	}
	return out
}

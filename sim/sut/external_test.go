package sut

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restartsim/restartsim/sim/scenario"
)

// A cancelled run (SIGINT, a test's deadline) kills the external controllers at once, and a
// controller started after the cancel is killed too: no child outlives the run.
func TestExternalChildrenDieWithTheRun(t *testing.T) {
	dir := t.TempDir()
	x := testExternal(t, &scenario.External{Command: []string{"sleep", "300"}}, dir, dir, 2)
	ctx, cancel := context.WithCancel(context.Background())
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	x.mu.Lock()
	procs := append([]*proc(nil), x.procs...)
	x.mu.Unlock()
	if len(procs) != 2 {
		t.Fatalf("%d children, want 2", len(procs))
	}
	for _, p := range procs {
		if p.cmd.SysProcAttr == nil || p.cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL || !p.cmd.SysProcAttr.Setpgid {
			t.Errorf("child %d: SysProcAttr %+v, want its own group and SIGKILL on parent death", p.id, p.cmd.SysProcAttr)
		}
	}
	cancel()
	for _, p := range procs {
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			t.Fatalf("child %d (pid %d) still running 5 s after the cancel", p.id, p.cmd.Process.Pid)
		}
	}
	if _, err := x.start(); err == nil {
		t.Error("a child started after the cancel was kept")
	}
	x.mu.Lock()
	left := len(x.procs)
	x.mu.Unlock()
	if left != 0 {
		// killAll waits for the children but leaves the bookkeeping to stop; it must be empty of live ones.
		for _, p := range x.procs {
			select {
			case <-p.done:
			default:
				t.Errorf("child %d still running", p.id)
			}
		}
	}
}

// The webhook certificate and key an external controller gets ({{.CertDir}}) are written in the
// environment's private directory, not in the run's folder.
func TestExternalKeysStayOutOfTheRunFolder(t *testing.T) {
	run, private := t.TempDir(), t.TempDir()
	x := testExternal(t, &scenario.External{Command: []string{"sleep", "300"}}, run, private, 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer x.Stop()
	p := x.oldest()
	if !strings.HasPrefix(p.data.CertDir, private+string(filepath.Separator)) {
		t.Errorf("CertDir %s is outside the private directory %s", p.data.CertDir, private)
	}
	if _, err := os.Stat(filepath.Join(p.data.CertDir, "tls.key")); err != nil {
		t.Errorf("no key in CertDir: %v", err)
	}
	_ = filepath.Walk(run, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if data, _ := os.ReadFile(path); strings.Contains(string(data), "PRIVATE KEY") {
				t.Errorf("%s in the run folder holds a key", path)
			}
		}
		return nil
	})
}

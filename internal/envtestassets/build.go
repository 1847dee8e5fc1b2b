package envtestassets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// ErrNoGo is returned when a binary must be built and the go command is not on PATH.
var ErrNoGo = errors.New("the go command is needed to build the envtest assets from source")

// BuildOptions configure Ensure.
type BuildOptions struct {
	// Dir receives the binaries. Default: CacheDir().
	Dir string
	// With names optional binaries to build as well; KubeControllerManager and KubeScheduler exist. Default: none.
	With []string
	// Progress receives one line per step: what is built, how long it takes cold, how long it
	// has taken so far and in the end, and go's own messages but its "go: downloading" lines.
	// Default: discarded.
	Progress io.Writer
	// ProgressEvery is how often a running build reports its elapsed time. Default: 1 min.
	ProgressEvery time.Duration

	// lookGo finds the go command. Default: exec.LookPath("go").
	lookGo func() (string, error)
	// build builds t into out. Default: goBuild.
	build func(ctx context.Context, goBin string, t target, out string, progress io.Writer) error
	// lockPoll is how often a waiting Ensure retries the lock. Default: 200 ms.
	lockPoll time.Duration
	// withOnly builds only the binaries in With: kube-apiserver and etcd came from a download.
	withOnly bool
}

func (o *BuildOptions) setDefaults() error {
	if o.Dir == "" {
		d, err := CacheDir()
		if err != nil {
			return fmt.Errorf("no user cache directory for the envtest assets (pass a directory): %w", err)
		}
		o.Dir = d
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	o.Progress = &syncWriter{w: o.Progress} // the elapsed-time ticker writes beside go's output
	if o.ProgressEvery <= 0 {
		o.ProgressEvery = time.Minute
	}
	if o.lookGo == nil {
		o.lookGo = func() (string, error) { return exec.LookPath("go") }
	}
	if o.build == nil {
		o.build = goBuild
	}
	if o.lockPoll <= 0 {
		o.lockPoll = 200 * time.Millisecond
	}
	return nil
}

// wanted are the targets to ensure, in build order.
func (o *BuildOptions) wanted() ([]target, error) {
	names := map[string]bool{"kube-apiserver": !o.withOnly, "etcd": !o.withOnly}
	for _, w := range o.With {
		if !slices.Contains(Optional, w) {
			return nil, fmt.Errorf("cannot build %q: the optional binaries are %s", w, strings.Join(Optional, ", "))
		}
		names[w] = true
	}
	var ts []target
	for _, t := range targets {
		if names[t.name] {
			ts = append(ts, t)
		}
	}
	return ts, nil
}

// Result says what Ensure did.
type Result struct {
	Dir string
	// Built lists the binaries built; Recorded those found built from the same module files but
	// without a stamp (by an older build), which now have one.
	Built, Recorded []string
}

// Ensure makes o.Dir hold kube-apiserver, etcd and the binaries in o.With, built from the embedded
// modules. When each binary is there with a stamp matching it and the module files, it returns at
// once without running go. Otherwise it takes a lock file in the directory (a second Ensure on the
// same directory waits, then finds the binaries built) and builds what is missing with the go
// command through the module proxy, into a temporary file renamed into place.
func Ensure(ctx context.Context, o BuildOptions) (*Result, error) {
	if err := o.setDefaults(); err != nil {
		return nil, err
	}
	want, err := o.wanted()
	if err != nil {
		return nil, err
	}
	return o.ensure(ctx, want)
}

// ensure is Ensure for the targets given, its options defaulted.
func (o *BuildOptions) ensure(ctx context.Context, want []target) (*Result, error) {
	res := &Result{Dir: o.Dir}
	if allStamped(o.Dir, want) {
		return res, nil
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	unlock, err := lockDir(ctx, o.Dir, o.Progress, o.lockPoll)
	if err != nil {
		return nil, err
	}
	defer unlock()
	removeStaleTemps(o.Dir)
	goBin := ""
	for _, t := range want {
		if t.stamped(o.Dir) { // built while this call waited for the lock
			continue
		}
		path := filepath.Join(o.Dir, t.name)
		if _, err := os.Stat(path); err == nil && t.builtFromModule(path) == nil {
			if err := writeStamp(o.Dir, t); err != nil {
				return nil, err
			}
			fmt.Fprintf(o.Progress, "%s in %s was built from the same module files; stamped it, nothing to build\n", t.name, o.Dir)
			res.Recorded = append(res.Recorded, t.name)
			continue
		}
		if goBin == "" {
			if goBin, err = o.lookGo(); err != nil {
				return nil, fmt.Errorf("%w (Go %s or later, https://go.dev/dl/; or set %s to a directory holding kube-apiserver and etcd): %v",
					ErrNoGo, "1.26", EnvVar, err)
			}
		}
		if err := o.buildOne(ctx, goBin, t); err != nil {
			return nil, err
		}
		res.Built = append(res.Built, t.name)
	}
	return res, nil
}

func allStamped(dir string, ts []target) bool {
	for _, t := range ts {
		if !t.stamped(dir) {
			return false
		}
	}
	return true
}

// buildOne builds t into a temporary file in o.Dir, renames it into place and stamps it, saying
// what it builds and, every ProgressEvery, how long it has taken.
func (o *BuildOptions) buildOne(ctx context.Context, goBin string, t target) error {
	fmt.Fprintf(o.Progress, "building %s %s from source through the Go module proxy into %s (cold: %s; once)\n",
		t.name, t.version, o.Dir, t.cold)
	tmp, err := os.CreateTemp(o.Dir, "."+t.name+".*.tmp")
	if err != nil {
		return err
	}
	tmp.Close()
	defer os.Remove(tmp.Name()) // a no-op once renamed
	start := time.Now()
	done := make(chan struct{})
	defer close(done)
	go func() {
		tick := time.NewTicker(o.ProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(o.Progress, "  still building %s: %s so far\n", t.name, time.Since(start).Round(time.Second))
			}
		}
	}()
	if err := o.build(ctx, goBin, t, tmp.Name(), o.Progress); err != nil {
		return fmt.Errorf("building %s: %w", t.name, err)
	}
	if err := os.Chmod(tmp.Name(), 0o755); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), filepath.Join(o.Dir, t.name)); err != nil {
		return err
	}
	if err := writeStamp(o.Dir, t); err != nil {
		return err
	}
	fmt.Fprintf(o.Progress, "built %s in %s\n", t.name, time.Since(start).Round(time.Second))
	return nil
}

// removeStaleTemps removes the temporary files of builds killed before they could (SIGKILL, a
// closed terminal): with the lock held, no other build writes them.
func removeStaleTemps(dir string) {
	stale, _ := filepath.Glob(filepath.Join(dir, ".*.tmp"))
	for _, f := range stale {
		_ = os.Remove(f)
	}
}

// writeStamp records that dir's binary t is built from the embedded module, atomically.
func writeStamp(dir string, t target) error {
	line, err := t.stamp(filepath.Join(dir, t.name))
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".stamp.*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), stampPath(dir, t.name))
}

// goBuild writes t's module into a temporary directory and runs go build there, without
// go.work and with go's "go: downloading" lines left out of progress.
func goBuild(ctx context.Context, goBin string, t target, out string, progress io.Writer) error {
	dir, err := os.MkdirTemp("", "restartsim-"+t.module+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := writeModule(t.module, dir); err != nil {
		return err
	}
	args := []string{"build", "-trimpath"}
	if t.ldflags != "" {
		args = append(args, "-ldflags", t.ldflags)
	}
	args = append(args, "-o", out, t.pkg)
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off")
	cmd.SysProcAttr = dieWithParent()
	w := &dropDownloads{w: progress}
	cmd.Stdout, cmd.Stderr = w, w
	err = cmd.Run()
	w.flush()
	if err != nil {
		return fmt.Errorf("go build %s: %w", t.pkg, err)
	}
	return nil
}

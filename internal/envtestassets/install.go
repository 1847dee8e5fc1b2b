package envtestassets

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// InstallOptions configure Install.
type InstallOptions struct {
	// Source skips the download and builds from source.
	Source bool
	// Fetch configures the download; its Progress defaults to Build.Progress.
	Fetch FetchOptions
	// Build configures the build, and Build.Dir where the binaries must end up: when set, a
	// download is linked there (the binaries stay in setup-envtest's store); when empty, a
	// download stays in the store and a build goes to the user cache.
	Build BuildOptions

	// fetch and build are Fetch and Ensure, replaced in tests.
	fetch func(context.Context, FetchOptions) (*Fetched, error)
	build func(context.Context, BuildOptions) (*Result, error)
}

// Installed says what Install did.
type Installed struct {
	Dir string
	// Version is the Kubernetes version of a download; a build is Version.
	Version string
	// How: "downloaded", "in setup-envtest's store", "up to date" (built or linked before), "built".
	How string
	// Fallback is why a build replaced the download, when it did.
	Fallback string
}

// Install makes kube-apiserver and etcd ready: from setup-envtest's release index into its store,
// and only when that fails (no network, a refusing proxy, a 404, a wrong checksum, a broken
// archive, a timeout) built from source by Ensure, after one line saying why. Binaries already
// in Build.Dir (built and stamped, or linked to the store) are used without a request, and so is
// a supported release already in the store. Optional binaries (Build.With) are not in the envtest
// archives: they are built from source beside the downloaded two.
func Install(ctx context.Context, o InstallOptions) (*Installed, error) {
	if o.fetch == nil {
		o.fetch = Fetch
	}
	if o.build == nil {
		o.build = Ensure
	}
	if o.Fetch.Progress == nil {
		o.Fetch.Progress = o.Build.Progress
	}
	if o.Source {
		return o.runBuild(ctx, "")
	}
	if len(o.Build.With) > 0 {
		return o.installWith(ctx)
	}
	if dir, ok := readyIn(o.Build.Dir); ok {
		if !allStamped(dir, wantBuilt()) && !isLinked(dir) {
			return o.runBuild(ctx, "") // built by an older build: Ensure stamps them
		}
		return &Installed{Dir: dir, Version: Version, How: "up to date"}, nil
	}
	f, err := o.fetch(ctx, o.Fetch)
	if err == nil && o.Build.Dir != "" {
		err = linkInto(o.Build.Dir, f.Dir)
	}
	if err != nil {
		if ctx.Err() != nil { // interrupted: no build either
			return nil, err
		}
		why := oneLine(err)
		if o.Build.Progress != nil {
			fmt.Fprintf(o.Build.Progress, "no envtest download (%s); building from source instead\n", why)
		}
		return o.runBuild(ctx, why)
	}
	in := &Installed{Dir: f.Dir, Version: f.Version, How: "in setup-envtest's store"}
	if f.Downloaded {
		in.How = "downloaded"
	}
	if o.Build.Dir != "" {
		in.Dir = o.Build.Dir
	}
	return in, nil
}

// installWith makes kube-apiserver and etcd ready in Build.Dir (the user cache by default, where
// the optional binaries must sit beside them) as Install does, then builds only the optional ones
// when the two came from a download.
func (o *InstallOptions) installWith(ctx context.Context) (*Installed, error) {
	with := o.Build.With
	if o.Build.Dir == "" {
		d, err := CacheDir()
		if err != nil {
			return nil, fmt.Errorf("no user cache directory for the envtest assets (pass a directory): %w", err)
		}
		o.Build.Dir = d
	}
	o.Build.With = nil
	core, err := Install(ctx, *o)
	if err != nil {
		return nil, err
	}
	if core.How == "built" || (core.How == "up to date" && !isLinked(core.Dir)) {
		o.Build.With = with // built from source: Ensure builds the rest beside them, as always
		return o.runBuild(ctx, core.Fallback)
	}
	o.Build.With, o.Build.withOnly = with, true
	res, err := o.runBuild(ctx, "")
	if err != nil {
		return nil, err
	}
	core.Dir = res.Dir
	if res.How == "built" {
		core.How += ", built " + strings.Join(with, ", ")
	}
	return core, nil
}

func (o *InstallOptions) runBuild(ctx context.Context, fallback string) (*Installed, error) {
	res, err := o.build(ctx, o.Build)
	if err != nil {
		return nil, err
	}
	how := "up to date"
	if len(res.Built) > 0 {
		how = "built"
	}
	return &Installed{Dir: res.Dir, Version: Version, How: how, Fallback: fallback}, nil
}

// readyIn returns dir (the user cache when empty) when it holds both binaries built and stamped
// (or built from the same module files, which Ensure stamps), or linked to a store that still
// holds them.
func readyIn(dir string) (string, bool) {
	if dir == "" {
		d, err := CacheDir()
		if err != nil {
			return "", false
		}
		dir = d
	}
	if allStamped(dir, wantBuilt()) || builtUnstamped(dir) || isLinked(dir) {
		return dir, true
	}
	return "", false
}

// wantBuilt are the targets of kube-apiserver and etcd.
func wantBuilt() []target {
	want, _ := (&BuildOptions{}).wanted()
	return want
}

// builtUnstamped reports whether dir's kube-apiserver and etcd are built from the embedded module
// files, without a stamp.
func builtUnstamped(dir string) bool {
	for _, t := range wantBuilt() {
		if t.builtFromModule(filepath.Join(dir, t.name)) != nil {
			return false
		}
	}
	return true
}

// isLinked reports whether dir's kube-apiserver and etcd link to files that exist.
func isLinked(dir string) bool {
	for _, b := range binaries {
		p := filepath.Join(dir, b)
		if st, err := os.Lstat(p); err != nil || st.Mode()&os.ModeSymlink == 0 {
			return false
		}
		if _, err := os.Stat(p); err != nil {
			return false
		}
	}
	return true
}

// linkInto points dir's kube-apiserver and etcd (and kubectl, when the archive has it) at the
// store's, replacing what is there, so a directory such as bin/k8s/<Version> serves envtest
// without a second copy.
func linkInto(dir, storeDir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, b := range append(append([]string{}, binaries...), "kubectl") {
		src := filepath.Join(storeDir, b)
		if _, err := os.Stat(src); err != nil {
			continue // kubectl is optional; checked() saw the others
		}
		dst := filepath.Join(dir, b)
		_ = os.Remove(stampPath(dir, b))
		tmp := filepath.Join(dir, "."+b+".link.tmp")
		_ = os.Remove(tmp)
		if err := os.Symlink(src, tmp); err != nil {
			return err
		}
		if err := os.Rename(tmp, dst); err != nil {
			return err
		}
	}
	return nil
}

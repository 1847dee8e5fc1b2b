package envtestassets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// Version is the Kubernetes version of the envtest binaries Ensure builds (the kubernetes module
// pins k8s.io/kubernetes at it). The Makefile's ENVTEST_K8S_VERSION must match.
const Version = "1.37.2"

// EnvVar is the environment variable envtest itself reads for the assets directory.
const EnvVar = "KUBEBUILDER_ASSETS"

// ErrMissing is returned when no directory holds both binaries.
var ErrMissing = errors.New("envtest assets missing")

// binaries are the files a usable assets directory must hold.
var binaries = []string{"kube-apiserver", "etcd"}

// Found is a directory holding the binaries and where the lookup found it.
type Found struct {
	Dir    string
	Source string // "flag", "$KUBEBUILDER_ASSETS", "setup-envtest", "repository bin/", "user cache", "beside the executable"
}

// Dir returns the directory holding kube-apiserver and etcd: explicit (a flag value) when set,
// else the first of Lookup's places that holds both. A missing directory yields one line telling
// the user to run `restartsim assets`.
func Dir(explicit string) (string, error) {
	if explicit != "" {
		return checked(explicit, "flag")
	}
	f, err := Lookup()
	return f.Dir, err
}

// Lookup finds a directory holding kube-apiserver, etcd and the extra binaries named. It looks,
// in order, at $KUBEBUILDER_ASSETS (which, when set, is the only place looked at, as for envtest),
// setup-envtest's store (k8s/<version>-<os>-<arch> in its data directory, newest supported
// release first), bin/k8s/<Version> in the enclosing repository (walking up from the working directory to a go.mod), the user cache that
// `restartsim assets` builds into (CacheDir), and k8s/<Version> beside the running executable.
func Lookup(extra ...string) (Found, error) {
	want := append(append([]string{}, binaries...), extra...)
	if env := os.Getenv(EnvVar); env != "" {
		dir, err := checkedFor(env, "$"+EnvVar, want)
		return Found{Dir: dir, Source: "$" + EnvVar}, err
	}
	var looked []string
	for _, c := range candidates() {
		if dir, err := checkedFor(c.Dir, c.Source, want); err == nil {
			return Found{Dir: dir, Source: c.Source}, nil
		}
		looked = append(looked, c.Dir)
	}
	return Found{}, fmt.Errorf("%w: %s v%s are in none of %s; run `restartsim assets` to download them (seconds) or, offline, build them (once, about 15 min) or set %s",
		ErrMissing, strings.Join(want, ", "), Version, strings.Join(looked, ", "), EnvVar)
}

// candidates are Lookup's places after $KUBEBUILDER_ASSETS, in order.
func candidates() []Found {
	var cs []Found
	for _, d := range setupEnvtestDirs() {
		cs = append(cs, Found{Dir: d, Source: "setup-envtest"})
	}
	if root, err := repoRoot(); err == nil {
		cs = append(cs, Found{Dir: filepath.Join(root, "bin", "k8s", Version), Source: "repository bin/"})
	}
	if d, err := CacheDir(); err == nil {
		cs = append(cs, Found{Dir: d, Source: "user cache"})
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		cs = append(cs, Found{Dir: filepath.Join(filepath.Dir(exe), "k8s", Version), Source: "beside the executable"})
	}
	return cs
}

// CacheDir is where `restartsim assets` builds by default: restartsim/k8s/<Version> in the user's
// cache directory ($XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS).
func CacheDir() (string, error) {
	c, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(c, "restartsim", "k8s", Version), nil
}

// setupEnvtestDirs are where setup-envtest keeps the supported releases (SupportedRange) for this
// platform, newest first: in
// ${XDG_DATA_HOME:-~/.local/share}/kubebuilder-envtest on Linux (both are looked at, since a
// download made before XDG_DATA_HOME was set stays in ~/.local/share), ~/Library/Application
// Support/io.kubebuilder.envtest on macOS, %LocalAppData%\kubebuilder-envtest on Windows.
func setupEnvtestDirs() []string {
	home, _ := os.UserHomeDir()
	var roots []string
	switch runtime.GOOS {
	case "darwin", "ios":
		if home != "" {
			roots = append(roots, filepath.Join(home, "Library", "Application Support", "io.kubebuilder.envtest"))
		}
	case "windows":
		if d := os.Getenv("LocalAppData"); d != "" {
			roots = append(roots, filepath.Join(d, "kubebuilder-envtest"))
		}
	default:
		if d := os.Getenv("XDG_DATA_HOME"); d != "" {
			roots = append(roots, filepath.Join(d, "kubebuilder-envtest"))
		}
		if home != "" {
			if d := filepath.Join(home, ".local", "share", "kubebuilder-envtest"); len(roots) == 0 || roots[0] != d {
				roots = append(roots, d)
			}
		}
	}
	name := fmt.Sprintf("%s-%s-%s", Version, runtime.GOOS, runtime.GOARCH)
	var dirs []string
	for _, r := range roots {
		rs := storeReleases(r)
		for _, f := range rs {
			dirs = append(dirs, f.Dir)
		}
		if len(rs) == 0 { // named in the error when nothing is found
			dirs = append(dirs, filepath.Join(r, "k8s", name))
		}
	}
	return dirs
}

// In returns dir, made absolute, when it holds both binaries; the error names source as where dir
// came from (a scenario field, say).
func In(dir, source string) (string, error) { return checked(dir, source) }

func checked(dir, source string) (string, error) { return checkedFor(dir, source, binaries) }

func checkedFor(dir, source string, want []string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, b := range want {
		if st, err := os.Stat(filepath.Join(abs, b)); err != nil || st.IsDir() {
			return "", fmt.Errorf("%w: %s not found in %s (%s); run `restartsim assets` to download or build them", ErrMissing, b, abs, source)
		}
	}
	return abs, nil
}

// repoRoot walks up from the working directory to the first directory with a go.mod whose
// bin/ may hold the assets; tests run in package directories, the CLI at the root.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "bin", "k8s")); err == nil {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no bin/k8s directory above the working directory")
		}
		dir = parent
	}
}

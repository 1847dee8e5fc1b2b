package envtestassets

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Version is the Kubernetes version of the envtest binaries that `make envtest-assets` builds.
// The Makefile's ENVTEST_K8S_VERSION must match.
const Version = "1.37.2"

// EnvVar is the environment variable envtest itself reads for the assets directory.
const EnvVar = "KUBEBUILDER_ASSETS"

// ErrMissing is returned when no directory holds both binaries.
var ErrMissing = errors.New("envtest assets missing")

// binaries are the files a usable assets directory must hold.
var binaries = []string{"kube-apiserver", "etcd"}

// Dir returns the directory holding kube-apiserver and etcd. It looks, in order, at explicit
// (a flag value), $KUBEBUILDER_ASSETS, bin/k8s/<Version>/ in the enclosing repository (found by
// walking up from the working directory to the directory holding go.mod), and k8s/<Version>/
// beside the running executable (bin/restartsim finds bin/k8s/<Version> from any directory).
// A missing directory yields one line telling the user how to build the assets.
func Dir(explicit string) (string, error) {
	if explicit != "" {
		return checked(explicit, "flag")
	}
	if env := os.Getenv(EnvVar); env != "" {
		return checked(env, "$"+EnvVar)
	}
	root, err := repoRoot()
	if err == nil {
		return checked(filepath.Join(root, "bin", "k8s", Version), "default location")
	}
	if dir, ok := besideExecutable(); ok {
		return dir, nil
	}
	return "", fmt.Errorf("%w: %v; run `make envtest-assets` or set %s", ErrMissing, err, EnvVar)
}

// besideExecutable is k8s/<Version> in the running executable's directory, when it holds the assets.
func besideExecutable() (string, bool) {
	exe, err := os.Executable()
	if err != nil {
		return "", false
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	dir, err := checked(filepath.Join(filepath.Dir(exe), "k8s", Version), "beside the executable")
	return dir, err == nil
}

// In returns dir, made absolute, when it holds both binaries; the error names source as where dir
// came from (a scenario field, say).
func In(dir, source string) (string, error) { return checked(dir, source) }

func checked(dir, source string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for _, b := range binaries {
		if st, err := os.Stat(filepath.Join(abs, b)); err != nil || st.IsDir() {
			return "", fmt.Errorf("%w: %s not found in %s (%s); run `make envtest-assets` to build them", ErrMissing, b, abs, source)
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

package envtestassets

import (
	"bufio"
	"bytes"
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// target is one binary Ensure can build: the embedded module it builds from and the package.
type target struct {
	name   string
	module string // directory under modules/
	// modulePath is the module's own path (its go.mod's module line), kept from when the modules
	// lived in hack/ so binaries built there are recognised.
	modulePath string
	pkg        string // the package to build, "." for the module's own main
	// pin is the dependency whose version names the build, at version.
	pin, version string
	ldflags      string
	cold         string // how long a cold build takes, for the progress line
}

// KubeControllerManager is the optional binary the local cluster needs (restartsim cluster up).
const KubeControllerManager = "kube-controller-manager"

// KubeScheduler is the optional binary a scenario with cluster.scheduler needs: it binds pending pods
// to nodes, as a controller that provisions nodes for them (Karpenter) expects.
const KubeScheduler = "kube-scheduler"

// Optional lists the binaries BuildOptions.With may name.
var Optional = []string{KubeControllerManager, KubeScheduler}

// kubeLDFlags stamp the version kube-apiserver reports (/version), as Kubernetes' own build does.
func kubeLDFlags() string {
	parts := strings.SplitN(Version, ".", 3)
	return strings.Join([]string{"-s", "-w",
		"-X k8s.io/component-base/version.gitVersion=v" + Version,
		"-X k8s.io/component-base/version.gitMajor=" + parts[0],
		"-X k8s.io/component-base/version.gitMinor=" + parts[1],
		"-X k8s.io/component-base/version.gitTreeState=clean",
		"-X k8s.io/component-base/version.buildDate=1970-01-01T00:00:00Z",
	}, " ")
}

// targets in build order: kube-controller-manager and kube-scheduler after kube-apiserver, whose compile cache it
// mostly shares.
var targets = []target{
	{name: "kube-apiserver", module: "kubernetes", modulePath: "github.com/restartsim/restartsim/hack/kubernetes",
		pkg: "k8s.io/kubernetes/cmd/kube-apiserver", pin: "k8s.io/kubernetes", version: "v" + Version,
		ldflags: kubeLDFlags(), cold: "about 5 min on 2 cores, up to 12 on a busy machine"},
	{name: KubeControllerManager, module: "kubernetes", modulePath: "github.com/restartsim/restartsim/hack/kubernetes",
		pkg: "k8s.io/kubernetes/cmd/kube-controller-manager", pin: "k8s.io/kubernetes", version: "v" + Version,
		ldflags: kubeLDFlags(), cold: "about 2.5 min after kube-apiserver"},
	{name: KubeScheduler, module: "kubernetes", modulePath: "github.com/restartsim/restartsim/hack/kubernetes",
		pkg: "k8s.io/kubernetes/cmd/kube-scheduler", pin: "k8s.io/kubernetes", version: "v" + Version,
		ldflags: kubeLDFlags(), cold: "about 2 min after kube-apiserver"},
	{name: "etcd", module: "etcd", modulePath: "github.com/restartsim/restartsim/hack/etcd",
		pkg: ".", pin: "go.etcd.io/etcd/server/v3", version: "v" + EtcdVersion, cold: "about 30 s"},
}

func targetNamed(name string) (target, bool) {
	for _, t := range targets {
		if t.name == name {
			return t, true
		}
	}
	return target{}, false
}

// mainPackage is the import path go records as the binary's main package.
func (t target) mainPackage() string {
	if t.pkg == "." {
		return t.modulePath
	}
	return t.pkg
}

// stampPath is the file beside the binary recording what it was built from.
func stampPath(dir, name string) string { return filepath.Join(dir, "."+name+".stamp") }

// stamp is the one line a stamp file holds for binary t at path: what was built, from which module
// files, for which platform, and the file's size and modification time (in seconds, which archives
// such as a CI cache keep), so a binary replaced or rebuilt by other means no longer matches.
func (t target) stamp(path string) (string, error) {
	digest, err := moduleDigest(t.module)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	return fmt.Sprintf("%s %s %s/%s module:%s size:%d mtime:%d\n", t.name, t.version, runtime.GOOS, runtime.GOARCH,
		digest, st.Size(), st.ModTime().Unix()), nil
}

// stamped reports whether dir's binary t is present and its stamp matches; a read of one small
// file and a stat, no go invocation.
func (t target) stamped(dir string) bool {
	path := filepath.Join(dir, t.name)
	want, err := t.stamp(path)
	if err != nil {
		return false
	}
	got, err := os.ReadFile(stampPath(dir, t.name))
	return err == nil && string(got) == want
}

// builtFromModule reports whether the binary at path was built from t's embedded module: its Go
// build info names the module and package, this platform, and only module versions whose hashes
// the module's go.sum holds. It recognises a binary built before stamps existed (by an older
// `make envtest-assets`), so it is not built again.
func (t target) builtFromModule(path string) error {
	info, err := buildinfo.ReadFile(path)
	if err != nil {
		return err
	}
	if info.Path != t.mainPackage() {
		return fmt.Errorf("built from %s, not %s", info.Path, t.mainPackage())
	}
	mods := info.Deps
	switch info.Main.Path {
	case t.modulePath: // the module's own main package (etcd)
	case t.pin: // a dependency's main package (kube-apiserver): go records that module as the main one
		mods = append(mods, &info.Main)
	default:
		return fmt.Errorf("built in module %s, not %s", info.Main.Path, t.modulePath)
	}
	for _, s := range info.Settings {
		if (s.Key == "GOOS" && s.Value != runtime.GOOS) || (s.Key == "GOARCH" && s.Value != runtime.GOARCH) {
			return fmt.Errorf("built for %s=%s", s.Key, s.Value)
		}
	}
	files, err := moduleFiles(t.module)
	if err != nil {
		return err
	}
	sums := goSumLines(files["go.sum"])
	pinned := false
	for _, d := range mods {
		m := d
		if d.Replace != nil {
			m = d.Replace
		}
		if !sums[m.Path+" "+m.Version+" "+m.Sum] {
			return fmt.Errorf("built with %s %s, which the module does not pin", m.Path, m.Version)
		}
		pinned = pinned || (m.Path == t.pin && m.Version == t.version)
	}
	if !pinned {
		return fmt.Errorf("not built with %s %s", t.pin, t.version)
	}
	return nil
}

// goSumLines is the set of go.sum's module-content lines ("path version h1:..."), without the
// go.mod-only ones.
func goSumLines(data []byte) map[string]bool {
	lines := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.Contains(line, "/go.mod ") {
			lines[line] = true
		}
	}
	return lines
}

package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/internal/envtestassets/envtestindex"
)

// realAssets is a directory holding real kube-apiserver and etcd, or the test is skipped.
func realAssets(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("integration test")
	}
	dir, err := envtestassets.Dir("")
	if err != nil {
		t.Skip(err)
	}
	return dir
}

// Real binaries, packed as controller-tools packs them and served by a local index, download into
// an empty store and start an envtest control plane that answers.
func TestDownloadedRealBinariesStartEnvtest(t *testing.T) {
	built := realAssets(t)
	v := envtestassets.Version
	srv := envtestindex.New(t, v, []string{v}, envtestindex.DirArchive(t, built))
	f, err := envtestassets.Fetch(context.Background(), envtestassets.FetchOptions{IndexURL: srv.IndexURL(), StoreDir: t.TempDir()})
	if err != nil || !f.Downloaded {
		t.Fatalf("%+v, %v; want a download", f, err)
	}
	t.Setenv(envtestassets.EnvVar, f.Dir)
	env := &envtest.Environment{BinaryAssetsDirectory: f.Dir}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var nss corev1.NamespaceList
	if err := c.List(context.Background(), &nss); err != nil || len(nss.Items) == 0 {
		t.Fatalf("namespaces %d, %v; want the default ones", len(nss.Items), err)
	}
}

// matrixScenario is a small run: a fleet converges, a controller crash-restarts, changes follow.
const matrixScenario = `apiVersion: restartsim/v1
kind: Scenario
name: matrix
seed: 5
timeScale: 10
aws: {profile: aws-documented, warmupProfile: unlimited, healthyAfter: 2s, deregistrationDelay: 10s}
fleet: {targetGroupBindings: 10, podsPerService: 2, nodes: 3}
controller:
  strategies: [{name: checkpoint, checkpoint: annotation}]
timeline:
  - {action: restart, mode: crash}
  - {after: 1s, action: churn, kind: mixed, services: 2}
  - {waitFor: steadyState, timeout: 5m}
thresholds:
  - {metric: invariant_violations, max: 0}
`

// The harness runs against every supported Kubernetes minor. It runs when RESTARTSIM_ENVTEST_MATRIX
// lists directories of envtest binaries (colon-separated), or is "auto": $KUBEBUILDER_ASSETS,
// setup-envtest's store and the checkout's bin/k8s/*; a minor without binaries is skipped. It is off
// by default, so that make test takes no longer.
func TestHarnessAcrossSupportedMinors(t *testing.T) {
	spec := os.Getenv("RESTARTSIM_ENVTEST_MATRIX")
	if spec == "" || testing.Short() {
		t.Skip("set RESTARTSIM_ENVTEST_MATRIX to directories of envtest binaries, or auto")
	}
	byMinor := map[int]string{}
	for _, dir := range matrixDirs(spec) {
		if m, err := apiserverMinor(dir); err == nil && byMinor[m] == "" {
			byMinor[m] = dir
		}
	}
	scenario := filepath.Join(t.TempDir(), "matrix.yaml")
	if err := os.WriteFile(scenario, []byte(matrixScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	newest, _ := strconv.Atoi(strings.Split(envtestassets.Version, ".")[1])
	for m := envtestassets.OldestMinor; m <= newest; m++ {
		t.Run(fmt.Sprintf("1.%d", m), func(t *testing.T) {
			dir := byMinor[m]
			if dir == "" {
				t.Skipf("no kube-apiserver 1.%d in %s", m, spec)
			}
			out := t.TempDir()
			var stderr strings.Builder
			if code := mainTo([]string{"simulate", "-f", scenario, "-o", out, "--no-report", "--envtest-assets", dir}, &stderr); code != ExitOK {
				t.Fatalf("simulate with %s: exit %d\n%s", dir, code, stderr.String())
			}
			if res, _ := filepath.Glob(filepath.Join(out, "matrix", "*", "results.json")); len(res) != 1 {
				t.Errorf("results.json: %v", res)
			}
		})
	}
}

// matrixDirs are the directories spec names, or for "auto" every place restartsim knows.
func matrixDirs(spec string) []string {
	if spec != "auto" {
		return filepath.SplitList(spec)
	}
	var dirs []string
	if d := os.Getenv(envtestassets.EnvVar); d != "" {
		dirs = append(dirs, d)
	}
	for _, root := range []string{os.Getenv("XDG_DATA_HOME"), filepath.Join(os.Getenv("HOME"), ".local", "share")} {
		if root != "" {
			ds, _ := filepath.Glob(filepath.Join(root, "kubebuilder-envtest", "k8s", "1.*"))
			dirs = append(dirs, ds...)
		}
	}
	for wd, _ := os.Getwd(); wd != filepath.Dir(wd); wd = filepath.Dir(wd) {
		ds, _ := filepath.Glob(filepath.Join(wd, "bin", "k8s", "1.*"))
		dirs = append(dirs, ds...)
	}
	return dirs
}

var apiserverVersion = regexp.MustCompile(`Kubernetes v1\.(\d+)\.`)

// apiserverMinor asks dir's kube-apiserver for its minor version.
func apiserverMinor(dir string) (int, error) {
	out, err := exec.Command(filepath.Join(dir, "kube-apiserver"), "--version").Output()
	if err != nil {
		return 0, err
	}
	m := apiserverVersion.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("%s: kube-apiserver --version printed %q", dir, out)
	}
	return strconv.Atoi(string(m[1]))
}

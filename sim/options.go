package sim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

// Options configures Run. Zero values take the documented defaults (newRunConfig).
type Options struct {
	// Scenario is the parsed, validated scenario. Required.
	Scenario *scenario.Scenario
	// ScenarioFile is copied into the output folder. Default: none copied.
	ScenarioFile string
	// Kubeconfig and KubeContext run on an existing cluster instead of the scenario's cluster section.
	Kubeconfig  string
	KubeContext string
	// AWSEndpoint uses a standalone fakeaws (its admin API) instead of an in-process one.
	AWSEndpoint string
	// AccessKeyID, SecretAccessKey: the AWS credentials. Default "restartsim" / "restartsim".
	AccessKeyID     string
	SecretAccessKey string
	// OutDir is the root of the output; a run writes OutDir/<scenario>/<timestamp>/, a folder it
	// creates and owns (<timestamp>-2, -3, ... when other runs started in the same second). Default "out".
	OutDir string
	// AssetsDir holds the envtest binaries. Default: envtestassets.Dir.
	AssetsDir string
	// Stdout receives the summary table. Default os.Stdout.
	Stdout io.Writer
	// Progress receives fleet-creation progress. Default os.Stderr; io.Discard silences it.
	Progress io.Writer
	// Logger receives the run's logs. Default logr.Discard().
	Logger logr.Logger
	// Version is recorded in results.json. Default "(devel)".
	Version string
	// Clock names the output folder (the run's start). Default the real clock.
	Clock clock.PassiveClock
	// Strategies runs only the named strategies of the scenario (all when empty); thresholds naming
	// others are ignored. An unknown name is bad input.
	Strategies []string
	// NoFleetSnapshot creates the fleet anew for every strategy instead of creating it once per seed
	// and starting each strategy on a copy of etcd and fakeaws (envtest with in-process fakeaws only).
	NoFleetSnapshot bool
	// NoReport skips rendering the PNG/HTML report into the output folder. Default false.
	NoReport bool
	// HeapPeakProfile, when set, is where the harness writes a heap profile each time its own
	// resident memory reaches a new high (at least 10 % above the last one written): the profile
	// of the run's peak, which an end-of-run heap profile misses.
	HeapPeakProfile string
	// SetupMemoryLimit is the soft memory limit (GOMEMLIMIT, bytes) of the harness and of the fleet
	// snapshot's kube-apiserver and etcd while a fleet is created and converged once for every
	// strategy: that one-off phase is a run's memory peak (each Go process holds 2-2.5 times its live
	// heap) and measures nothing, so its garbage collectors may work harder. Measured phases keep Go's
	// defaults. 0 means DefaultSetupMemoryLimit; negative means none. A GOMEMLIMIT in the
	// environment wins (it applies to every phase and process).
	SetupMemoryLimit int64
	// InstallCRDs creates the CRDs a run on a kubeconfig cluster needs and the cluster does not serve
	// (the harness's TargetGroupBinding CRD and the scenario's cluster.crds); without it, a missing
	// CRD is bad environment, reported before anything is created.
	InstallCRDs bool
	// ManagerSetups fill the managers of the scenario's inProcess strategies, by strategy name: a
	// Go test's reconcilers (package restartsimtest). An inProcess strategy without one is bad
	// input. NewScheme returns each of those managers' scheme. Default: client-go's types.
	ManagerSetups map[string]sut.ManagerSetup
	NewScheme     func() *runtime.Scheme
	// Parallel runs up to this many strategy runs side by side, each with its own API server,
	// etcd, fakeaws, controller, ports and directory; A/B sides interleaved, a look waiting for its
	// block. 0: the scenario's ab.parallel; 0 or 1 there too: one after another.
	Parallel int
}

// DefaultSetupMemoryLimit is Options.SetupMemoryLimit's default: small fleets never reach it; at
// 10,000 bindings it keeps the setup under the measured phases' peak.
const DefaultSetupMemoryLimit = 1792 << 20

// runConfig is Options with every default filled in: what a run reads, and never writes. Run and
// Check make one from their Options (newRunConfig), once; everything below them takes it as it is,
// so no default is applied twice and the caller's Options stay as they were.
type runConfig struct{ Options }

// newRunConfig fills in the defaults of o, the caller's copy.
func newRunConfig(o Options) runConfig {
	if o.AccessKeyID == "" {
		o.AccessKeyID = "restartsim"
	}
	if o.SecretAccessKey == "" {
		o.SecretAccessKey = "restartsim"
	}
	if o.OutDir == "" {
		o.OutDir = "out"
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Progress == nil {
		o.Progress = os.Stderr
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	if o.Version == "" {
		o.Version = "(devel)"
	}
	if o.Clock == nil {
		o.Clock = clock.RealClock{}
	}
	if o.Parallel == 0 && o.Scenario != nil && o.Scenario.AB != nil {
		o.Parallel = o.Scenario.AB.Parallel
	}
	if o.Parallel > 1 {
		o.Progress = io.Discard // the spinners of runs side by side would write over each other
	}
	switch {
	case os.Getenv("GOMEMLIMIT") != "":
		o.SetupMemoryLimit = -1
	case o.SetupMemoryLimit == 0:
		o.SetupMemoryLimit = DefaultSetupMemoryLimit
	}
	return runConfig{o}
}

// onKubeconfig reports whether the run uses an existing cluster.
func onKubeconfig(o runConfig, sc *scenario.Scenario) bool {
	return o.Kubeconfig != "" || sc.Cluster.Kubeconfig != nil
}

// kubeconfigPath is the kubeconfig file a run on an existing cluster uses: --kubeconfig, else the
// scenario's cluster.kubeconfig.path, else the first file of $KUBECONFIG, else ~/.kube/config.
func kubeconfigPath(o runConfig, sc *scenario.Scenario) (string, error) {
	if o.Kubeconfig != "" {
		return o.Kubeconfig, nil
	}
	if k := sc.Cluster.Kubeconfig; k != nil && k.Path != "" {
		return k.Path, nil
	}
	for _, p := range filepath.SplitList(os.Getenv("KUBECONFIG")) {
		if p != "" {
			return p, nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no kubeconfig: $KUBECONFIG is unset and %w", err)
	}
	return filepath.Join(home, ".kube", "config"), nil
}

// runCreds are the credentials and region every AWS client of a run uses.
func runCreds(o runConfig, sc *scenario.Scenario) backend.Creds {
	return backend.Creds{Region: sc.AWS.Region, AccessKey: o.AccessKeyID, SecretKey: o.SecretAccessKey}
}

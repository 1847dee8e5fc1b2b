package sim

import (
	"io"
	"os"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
)

// Options configures Run. Zero values take the documented defaults (setDefaults).
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

	// cluster is what a run on a kubeconfig cluster decided before its first strategy (nil on envtest).
	cluster *clusterRun
}

// DefaultSetupMemoryLimit is Options.SetupMemoryLimit's default: small fleets never reach it; at
// 10,000 bindings it keeps the setup under the measured phases' peak.
const DefaultSetupMemoryLimit = 1792 << 20

func (o Options) setDefaults() Options {
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
	switch {
	case os.Getenv("GOMEMLIMIT") != "":
		o.SetupMemoryLimit = -1
	case o.SetupMemoryLimit == 0:
		o.SetupMemoryLimit = DefaultSetupMemoryLimit
	}
	return o
}

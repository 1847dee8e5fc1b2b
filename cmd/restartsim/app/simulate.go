package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/scenarios"
	"github.com/restartsim/restartsim/sim"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

func init() { subcommands = append(subcommands, newSimulateCommand) }

// Exit codes of simulate besides ExitOK and ExitBadInput. ExitInvariantViolated also covers
// changes never applied that the scenario did not expect: the end state is wrong either way.
const (
	ExitInvariantViolated = 3
	ExitThresholdBreached = 4
)

// simulateOptions are the flags of `restartsim simulate`.
type simulateOptions struct {
	Parallel      int
	File          string
	Kubeconfig    string
	KubeContext   string
	AWSEndpoint   string
	OutDir        string
	EnvtestAssets string
	ProfileDir    string
	NoReport      bool
	FreshFleets   bool
	InstallCRDs   bool
	DryRun        bool
	Verbose       int
	SetupMemory   memoryLimit

	scenario *scenario.Scenario
}

func newSimulateCommand() *cobra.Command {
	o := &simulateOptions{}
	cmd := &cobra.Command{
		Use:   "simulate [-f SCENARIO]",
		Short: "Run a scenario: fleet, restarts, churn and faults; measure time-to-first-meaningful-reconcile per strategy",
		Long: `Run a scenario file end to end and write out/<scenario>/<timestamp>/ (results.json, timeseries.csv,
the AWS call log, controller logs, report). Without -f it runs the quickstart built into restartsim
(scenarios/quickstart.yaml), from any directory. Exit codes: 0 ok, 2 bad input or environment,
3 an invariant was violated or a change was never applied, 4 a threshold was breached.`,
		Example: `  # The default demo: 200 bindings, a crash restart, three strategies (about a minute)
  restartsim simulate

  # Your own controller, beside the reference checkpoint strategy (docs/scenarios.md)
  LBC_BINARY=../lbc/controller LBC_CRDS=../lbc/config/crd/bases restartsim simulate -f scenarios/lbc/restart.yaml

  # On an existing cluster, logs as JSON, output elsewhere
  restartsim simulate -f scenarios/quickstart.yaml --kubeconfig ~/.kube/config --log-format json -o /tmp/runs`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(cmd.Context()); err != nil {
				return badInput(err)
			}
			if o.DryRun {
				return printValid(cmd.OutOrStdout(), o.File, o.scenario)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the flags.
func (o *simulateOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.File, "file", "f", "", "scenario file (YAML, apiVersion restartsim/v1; - reads standard input; default: the built-in quickstart)")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "run on an existing cluster instead of envtest (the fleet lives in its own labelled namespaces and is deleted afterwards)")
	fs.StringVar(&o.KubeContext, "context", "", "kubeconfig context (default: current)")
	fs.BoolVar(&o.InstallCRDs, "install-crds", false, "with --kubeconfig: create the CRDs the run needs that the cluster does not serve (without it, a missing CRD is exit 2 before anything is created)")
	fs.StringVar(&o.AWSEndpoint, "aws-endpoint", "", "use a standalone fakeaws (restartsim fakeaws) at this URL instead of an in-process one")
	fs.StringVarP(&o.OutDir, "out", "o", "out", "output root; a run writes <out>/<scenario>/<timestamp>/ (<timestamp>-2, -3, ... for runs started in the same second)")
	fs.StringVar(&o.EnvtestAssets, "envtest-assets", "", "directory holding kube-apiserver and etcd (default: $KUBEBUILDER_ASSETS, setup-envtest's, bin/k8s/<version>, the user cache of restartsim assets)")
	fs.StringVar(&o.ProfileDir, "profile-dir", "", "write pprof profiles of the run into this directory: cpu.pprof, heap.pprof (end of run), heap-peak.pprof (at the harness's highest RSS)")
	fs.BoolVar(&o.NoReport, "no-report", false, "skip rendering the PNG/HTML report")
	fs.BoolVar(&o.DryRun, "dry-run", false, "run every check made before the start (as restartsim validate does), start nothing and exit: 0 valid, 2 not")
	fs.BoolVar(&o.FreshFleets, "fresh-fleets", false, freshFleetsHelp)
	fs.Var(&o.SetupMemory, "setup-memory-limit", setupMemoryLimitHelp)
	fs.IntVar(&o.Parallel, "parallel", 0, parallelHelp+" (default: an A/B scenario's ab.parallel, else 1)")
	addVerbosityFlag(fs, &o.Verbose, "log verbosity on stderr (0: progress only)", "verbose")
}

const parallelHelp = "run up to N strategy runs (repeats, strategies, A/B runs) side by side, each with its own API server, etcd, fakeaws, controller, ports and directory"

const freshFleetsHelp = "create the fleet anew for every strategy (default on envtest: create it once per seed and start every strategy on a copy of etcd and fakeaws)"

// Validate checks the flags and parses the scenario: nothing starts unless the whole file is valid.
// Reading the file gives up when ctx ends (a named pipe may wait for its writer).
func (o *simulateOptions) Validate(ctx context.Context) error {
	if err := sim.CheckParallel(o.Parallel); err != nil {
		return err
	}
	if o.File == "" {
		// The built-in quickstart; its name goes into results.json and the output folder's copy.
		o.File = scenarios.QuickstartName
	}
	sc, err := loadAndCheck(ctx, o.File, o.simOptions(nil, nil, nil))
	if err != nil {
		return err
	}
	if o.InstallCRDs && o.Kubeconfig == "" && sc.Cluster.Kubeconfig == nil {
		return errors.New("--install-crds applies to --kubeconfig clusters only (envtest installs the CRDs itself)")
	}
	o.scenario = sc
	return nil
}

// simOptions are the run's options (with the scenario parsed, once it is).
func (o *simulateOptions) simOptions(stdout, stderr io.Writer, log *logr.Logger) sim.Options {
	opts := sim.Options{
		Scenario: o.scenario, ScenarioFile: o.File, Kubeconfig: o.Kubeconfig, KubeContext: o.KubeContext,
		AWSEndpoint: o.AWSEndpoint, OutDir: o.OutDir, AssetsDir: o.EnvtestAssets, Stdout: stdout, Progress: stderr,
		Version: Version(), NoReport: o.NoReport, NoFleetSnapshot: o.FreshFleets,
		HeapPeakProfile: heapPeakFile(o.ProfileDir), SetupMemoryLimit: o.SetupMemory.bytes, InstallCRDs: o.InstallCRDs,
		Parallel: o.Parallel,
	}
	if log != nil {
		opts.Logger = *log
	}
	return opts
}

func (o *simulateOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	if o.ProfileDir != "" {
		stop, err := startProfiles(o.ProfileDir)
		if err != nil {
			return badInput(err)
		}
		defer stop()
	}
	log, flush, err := newRunLogger(o.Verbose)
	if err != nil {
		return err
	}
	defer flush()
	_, err = sim.Run(ctx, o.simOptions(stdout, stderr, &log))
	return exitFor(err)
}

// exitFor maps a run's error onto the exit codes.
func exitFor(err error) error {
	if err == nil {
		return nil
	}
	var v *results.ViolationError
	if errors.As(err, &v) {
		code := ExitThresholdBreached
		// A change AWS never showed leaves the end state wrong, as a broken invariant does.
		if v.Kind == results.ViolationInvariant || v.Kind == results.ViolationUnapplied {
			code = ExitInvariantViolated
		}
		return &ExitError{Code: code, Err: err}
	}
	if runerr.IsBadInput(err) {
		return badInput(err)
	}
	return &ExitError{Code: ExitFailure, Err: err}
}

// heapPeakFile names the heap profile of the harness's peak memory in a profile directory.
func heapPeakFile(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "heap-peak.pprof")
}

// startProfiles writes cpu.pprof now and heap.pprof when stopped.
func startProfiles(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(filepath.Join(dir, "cpu.pprof"))
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
		h, err := os.Create(filepath.Join(dir, "heap.pprof"))
		if err != nil {
			return
		}
		defer h.Close()
		runtime.GC()
		_ = pprof.WriteHeapProfile(h)
	}, nil
}

package app

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

func init() { subcommands = append(subcommands, newGateCommand) }

// gateOptions are the flags of `restartsim gate`.
type gateOptions struct {
	// Parallel is how many runs of a scenario run side by side.
	Parallel int
	// File is a scenario to run first (instead of Results); its results are then gated.
	File string
	// OutDir, EnvtestAssets and Verbose configure that run as for simulate.
	OutDir        string
	EnvtestAssets string
	Verbose       int
	// BaselineBinary, CandidateBinary and their args override the scenario's ab section.
	BaselineBinary, CandidateBinary string
	BaselineArgs, CandidateArgs     []string
	// Results is the results.json of the run under test.
	Results string
	// Baseline is a file path or s3://bucket/key.
	Baseline string
	// UpdateBaseline writes Results as the new baseline after checking the absolute limits.
	UpdateBaseline bool
	// JUnit, when set, receives a JUnit XML report.
	JUnit string
	// S3 configures s3:// baselines; empty fields come from the AWS environment.
	S3 gate.S3Options

	scenario *scenario.Scenario
	current  *results.Results // results read from standard input (-f -)
	// runDir is the folder of the run -f SCENARIO made, once it completed.
	runDir string
}

func newGateCommand() *cobra.Command {
	o := &gateOptions{}
	cmd := &cobra.Command{
		Use:   "gate -f (SCENARIO | RESULTS.json) [--baseline BASELINE] [--junit FILE]",
		Short: "Judge a run: an A/B comparison of two builds with statistics, and rules against a baseline (exit 0 pass, 1 regression, 2 bad input, 75 inconclusive)",
		Long: `Judge a run's results.json (-f FILE.json), or run a scenario first (-f FILE.yaml) and judge its
results.

Two layers, each optional, both from the scenario:
  ab:    two builds of one strategy's controller run side by side in the same run, on the same
         fleet snapshot and timeline, interleaved A B B A ...; per metric the gate compares the
         two samples with a Mann-Whitney U test. It looks after ab.repeats runs per side and,
         while a check is inconclusive, after every further ab.block runs, within ab.budget of
         wall time and ab.maxRepeats runs; a group-sequential boundary spends the family-wise
         alpha over the looks, weighted Holm shares it among the metrics. A check fails when the
         candidate is significantly worse by more than its minimum effect, passes when the
         intervals rule out a regression above the minimum effect, and is inconclusive otherwise.
         --baseline-binary / --candidate-binary (and --*-arg) set the two builds; given both,
         they stand for the ${...BINARY} of the strategy's command, which need not be set.
  gate:  rules on one run's figures against a committed baseline results.json (a file path or
         s3://bucket/key; --baseline) and absolute limits.

Prints the verdict tables. Exit code 0: every check passed; 1: a regression, a value over an
absolute limit, a candidate that broke the run, or an output that could not be written (the
run's, --junit, the new baseline; a run's folder is then marked INCOMPLETE); 2: bad input or
environment (unreadable files, figures out of range, unknown metric, missing baseline); 75:
inconclusive, nothing failed but the A/B comparison could not rule out a regression (too few
runs for the noise, a loaded machine): run the gate again, on a quieter machine or with a larger
ab.budget. --junit is removed before a run, so a failed run never leaves an old pass behind.

S3 credentials, region and endpoint come from the usual AWS environment (AWS_PROFILE,
AWS_ACCESS_KEY_ID, AWS_REGION, AWS_ENDPOINT_URL_S3, ...) unless set by flags; with a custom
endpoint, buckets are addressed path-style, as gofakes3 and MinIO expect.`,
		Example: `  # A/B of the reference controller: a build of an older commit against the working tree
  restartsim gate -f scenarios/ci-gate.yaml --baseline-binary bin/gate-base/restartsim \
    --candidate-binary bin/restartsim --baseline scenarios/baselines/ci-gate.json --junit out/junit.xml

  # Judge a finished run against a committed baseline
  restartsim gate -f out/ci-gate/run/ci-gate/*/results.json --baseline scenarios/baselines/ci-gate.json

  # Record a new count baseline from a finished run
  restartsim gate -f out/ci-gate/run/ci-gate/*/results.json --baseline scenarios/baselines/ci-gate.json --update-baseline`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return o.inputError("", err)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the flags.
func (o *gateOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.File, "file", "f", "", "a scenario to run, then judge; or a results.json (name ending in .json) to judge")
	fs.StringVarP(&o.OutDir, "out", "o", "out", "output root of a scenario run; it writes <out>/<scenario>/<timestamp>/")
	fs.StringVar(&o.EnvtestAssets, "envtest-assets", "", "directory holding kube-apiserver and etcd (default: $KUBEBUILDER_ASSETS or bin/k8s/<version>)")
	addVerbosityFlag(fs, &o.Verbose, "log verbosity on stderr of a scenario run (0: progress only)", "verbose")
	fs.IntVar(&o.Parallel, "parallel", 0, parallelHelp+" (default: the scenario's ab.parallel, else 1)")
	fs.StringVar(&o.BaselineBinary, "baseline-binary", "", "A/B: the baseline build's binary (overrides ab.baseline.binary)")
	fs.StringVar(&o.CandidateBinary, "candidate-binary", "", "A/B: the candidate build's binary (overrides ab.candidate.binary)")
	fs.StringArrayVar(&o.BaselineArgs, "baseline-arg", nil, "A/B: an argument appended to the baseline's command (repeatable; replaces ab.baseline.args)")
	fs.StringArrayVar(&o.CandidateArgs, "candidate-arg", nil, "A/B: an argument appended to the candidate's command (repeatable; replaces ab.candidate.args)")
	fs.StringVar(&o.Results, "results", "", "results.json of the run under test")
	_ = fs.MarkDeprecated("results", "use -f RESULTS.json")
	fs.StringVar(&o.Baseline, "baseline", "", "baseline results.json for the gate rules: a file path or s3://bucket/key (needed when a rule has maxRegression)")
	fs.BoolVar(&o.UpdateBaseline, "update-baseline", false, "check only absolute limits, then write the judged results.json as the new baseline")
	fs.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report to this file")
	fs.StringVar(&o.S3.Endpoint, "s3-endpoint", "", "S3 endpoint URL for s3:// baselines (default: AWS, or AWS_ENDPOINT_URL_S3)")
	fs.StringVar(&o.S3.Region, "aws-region", "", "AWS region for s3:// baselines (default: AWS_REGION, else us-east-1)")
	addDeprecatedAlias(fs, "region", "aws-region")
	fs.StringVar(&o.S3.Profile, "aws-profile", "", "AWS shared-config profile for s3:// baselines (default: AWS_PROFILE)")
}

// Validate checks the flags and, with -f, parses the scenario and applies the build overrides:
// nothing starts unless the whole input is valid.
func (o *gateOptions) Validate() error {
	if err := sim.CheckParallel(o.Parallel); err != nil {
		return err
	}
	var stdin []byte
	if o.File == scenario.Stdin || o.Results == scenario.Stdin {
		// One stream, read once: a results document (JSON) or a scenario.
		var err error
		if stdin, err = scenario.ReadFile(context.Background(), scenario.Stdin); err != nil {
			return err
		}
		if t := bytes.TrimSpace(stdin); len(t) > 0 && t[0] == '{' && o.Results == "" {
			o.Results, o.File = scenario.Stdin, ""
		}
		if o.Results == scenario.Stdin {
			if o.current, err = results.Decode(stdin, scenario.StdinName); err != nil {
				return err
			}
		}
	}
	if strings.HasSuffix(o.File, ".json") && o.Results == "" {
		o.Results, o.File = o.File, ""
	}
	switch {
	case (o.Results == "") == (o.File == ""):
		return errors.New("give one of -f SCENARIO (run, then judge) and -f RESULTS.json (judge a finished run)")
	case o.UpdateBaseline && o.Baseline == "":
		return errors.New("--update-baseline needs --baseline")
	}
	abFlags := o.BaselineBinary != "" || o.CandidateBinary != "" || o.BaselineArgs != nil || o.CandidateArgs != nil
	if o.File == "" {
		if abFlags {
			return errors.New("--baseline-binary, --candidate-binary and --*-arg need -f SCENARIO (a run)")
		}
		return nil
	}
	var sc *scenario.Scenario
	var err error
	// The binaries given stand for the ${...BINARY} of the A/B strategy's command, which then
	// need not be set.
	bins := scenario.Binaries{Baseline: o.BaselineBinary, Candidate: o.CandidateBinary}
	if o.File == scenario.Stdin {
		sc, err = scenario.ParseWithBinaries(scenario.StdinName, stdin, bins)
	} else {
		sc, err = scenario.LoadWithBinaries(context.Background(), o.File, bins)
	}
	if err != nil {
		return err
	}
	if abFlags && sc.AB == nil {
		return fmt.Errorf("%s: --baseline-binary, --candidate-binary and --*-arg need an ab section in the scenario", o.File)
	}
	if sc.AB != nil {
		for _, b := range []struct {
			flag, bin string
			args      []string
			build     *scenario.Build
		}{{"--baseline-binary", o.BaselineBinary, o.BaselineArgs, &sc.AB.Baseline}, {"--candidate-binary", o.CandidateBinary, o.CandidateArgs, &sc.AB.Candidate}} {
			if b.bin != "" {
				if _, err := os.Stat(b.bin); err != nil {
					return fmt.Errorf("%s: %w", b.flag, err)
				}
				b.build.Binary = b.bin
			}
			if b.args != nil {
				b.build.Args = b.args
			}
		}
	}
	o.scenario = sc
	return nil
}

func (o *gateOptions) run(ctx context.Context, out, stderr io.Writer) error {
	if o.JUnit != "" {
		// Only a file is removed: --junit /dev/stdout must not take the device with it.
		if fi, err := os.Lstat(o.JUnit); err == nil && !fi.Mode().IsRegular() {
			return badInput(fmt.Errorf("--junit %s is not a regular file", o.JUnit))
		}
		if err := os.Remove(o.JUnit); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return badInput(fmt.Errorf("removing the previous --junit file: %w", err))
		}
	}
	var cur *results.Results
	var err error
	if o.File != "" {
		if cur, err = o.simulate(ctx, out, stderr); err != nil {
			return err
		}
	} else if cur = o.current; cur == nil {
		cur, err = results.Load(o.Results)
	}
	if err != nil && o.File == "" {
		return o.inputError("", err)
	}
	var base *results.Results
	var store gate.Store
	if o.Baseline == "" && needsBaseline(cur) {
		return o.inputError(cur.Scenario.Name, errors.New("the gate rules compare with a baseline (maxRegression): give --baseline FILE or s3://bucket/key"))
	}
	if o.Baseline != "" {
		if store, err = gate.OpenStore(ctx, o.Baseline, o.S3); err != nil {
			return o.inputError(cur.Scenario.Name, err)
		}
		if !o.UpdateBaseline {
			if base, err = store.Load(ctx); err != nil {
				if errors.Is(err, gate.ErrNoBaseline) {
					err = fmt.Errorf("%w; record one with --update-baseline", err)
				}
				return o.inputError(cur.Scenario.Name, err)
			}
		}
	}
	rep, err := gate.Evaluate(cur, base)
	if err != nil && !gate.IsViolation(err) && !gate.IsInconclusive(err) {
		return o.inputError(cur.Scenario.Name, err)
	}
	if werr := gate.WriteTable(out, rep); werr != nil {
		return werr
	}
	if o.JUnit != "" {
		if werr := writeFile(o.JUnit, func(w io.Writer) error { return gate.WriteJUnit(w, rep) }); werr != nil {
			return o.outputError(werr)
		}
	}
	if gate.IsInconclusive(err) && !o.UpdateBaseline {
		fmt.Fprintf(out, "gate INCONCLUSIVE (exit %d): no regression shown, none ruled out; %d checks\n", ExitInconclusive, len(rep.AB)+len(rep.Checks))
		return &ExitError{Code: ExitInconclusive, Err: err}
	}
	if err != nil && !gate.IsInconclusive(err) {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.UpdateBaseline {
		if err := store.Save(ctx, cur); err != nil {
			if outfile.IsError(err) {
				return o.outputError(err)
			}
			return badInput(err)
		}
		fmt.Fprintf(out, "baseline updated: %s\n", store)
		return nil
	}
	against := "absolute limits"
	if store != nil {
		against = store.String()
	}
	fmt.Fprintf(out, "gate passed: %d checks (%d A/B metrics, %d rules against %s)\n", len(rep.AB)+len(rep.Checks), len(rep.AB), len(rep.Checks), against)
	return nil
}

// needsBaseline reports whether a rule of r compares with a baseline.
func needsBaseline(r *results.Results) bool {
	for _, g := range r.Gate {
		if g.MaxRegression != nil {
			return true
		}
	}
	return false
}

// simulate runs the scenario and returns its results. A run that completed with a violated
// invariant or threshold is judged like any other (the rules decide); a candidate that broke the
// run before it completed is a regression; anything else is the environment's fault.
func (o *gateOptions) simulate(ctx context.Context, out, stderr io.Writer) (*results.Results, error) {
	log, flush, err := newRunLogger(o.Verbose)
	if err != nil {
		return nil, err
	}
	defer flush()
	rep, err := sim.Run(ctx, sim.Options{Scenario: o.scenario, ScenarioFile: o.File, OutDir: o.OutDir, AssetsDir: o.EnvtestAssets,
		Stdout: out, Progress: stderr, Logger: log, Version: Version(), Parallel: o.Parallel})
	var v *results.ViolationError
	switch {
	case rep != nil && (err == nil || errors.As(err, &v)):
		o.runDir = rep.Dir
		return rep.Results, nil
	case errors.As(err, &v):
		if werr := o.writeJUnitError(o.scenario.Name, "regression", err); werr != nil {
			err = errors.Join(err, werr)
		}
		return nil, &ExitError{Code: ExitFailure, Err: err}
	case outfile.IsError(err): // the run marked its folder INCOMPLETE
		return nil, &ExitError{Code: ExitFailure, Err: err}
	case runerr.IsBadInput(err) || err != nil:
		return nil, o.inputError(o.scenario.Name, err)
	}
	return nil, errors.New("gate: the run produced no results")
}

// outputError is exit 1 for an output that could not be written, and marks the folder of the
// run the gate made (if any) INCOMPLETE.
func (o *gateOptions) outputError(err error) error {
	if o.runDir != "" {
		sim.MarkIncomplete(o.runDir, fmt.Errorf("the gate's output: %w", err))
	}
	return &ExitError{Code: ExitFailure, Err: err}
}

// inputError records a gate that could not run in the JUnit file too, and marks it exit 2.
func (o *gateOptions) inputError(scenario string, err error) error {
	if werr := o.writeJUnitError(scenario, "input", err); werr != nil {
		err = errors.Join(err, werr)
	}
	return badInput(err)
}

// writeJUnitError writes a JUnit file with one errored test case of the given type, if asked for.
func (o *gateOptions) writeJUnitError(scenario, kind string, err error) error {
	if o.JUnit == "" {
		return nil
	}
	return writeFile(o.JUnit, func(w io.Writer) error { return gate.WriteJUnitError(w, scenario, kind, err) })
}

// writeFile writes path whole or not at all.
func writeFile(path string, write func(io.Writer) error) error {
	return outfile.Write(outfile.Disk{}, path, write)
}

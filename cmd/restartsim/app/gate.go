package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/reports/results"
)

func init() { subcommands = append(subcommands, newGateCommand) }

// gateOptions are the flags of `restartsim gate`.
type gateOptions struct {
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
}

func newGateCommand() *cobra.Command {
	o := &gateOptions{}
	cmd := &cobra.Command{
		Use:   "gate --results FILE --baseline BASELINE [--update-baseline] [--junit FILE]",
		Short: "Check a run against the scenario's gate rules and a baseline (exit 0 pass, 1 regression, 2 bad input)",
		Long: `Check a run's results.json against the gate rules of its scenario and against a baseline
results.json stored in a file or at s3://bucket/key. Prints a table of metric, baseline,
current, limit and verdict. Exit code 0: every check passed; 1: a regression or a value over
an absolute limit; 2: bad input (unreadable files, unknown metric, missing baseline).

S3 credentials, region and endpoint come from the usual AWS environment (AWS_PROFILE,
AWS_ACCESS_KEY_ID, AWS_REGION, AWS_ENDPOINT_URL_S3, ...) unless set by flags; with a custom
endpoint, buckets are addressed path-style, as gofakes3 and MinIO expect.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return badInput(err)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the flags.
func (o *gateOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Results, "results", "", "results.json of the run under test")
	fs.StringVar(&o.Baseline, "baseline", "", "baseline results.json: a file path or s3://bucket/key")
	fs.BoolVar(&o.UpdateBaseline, "update-baseline", false, "check only absolute limits, then write --results as the new baseline")
	fs.StringVar(&o.JUnit, "junit", "", "also write a JUnit XML report to this file")
	fs.StringVar(&o.S3.Endpoint, "s3-endpoint", "", "S3 endpoint URL for s3:// baselines (default: AWS, or AWS_ENDPOINT_URL_S3)")
	fs.StringVar(&o.S3.Region, "region", "", "AWS region for s3:// baselines (default: AWS_REGION, else us-east-1)")
	fs.StringVar(&o.S3.Profile, "aws-profile", "", "AWS shared-config profile for s3:// baselines (default: AWS_PROFILE)")
}

// Validate checks the flags.
func (o *gateOptions) Validate() error {
	switch {
	case o.Results == "":
		return errors.New("--results is required")
	case o.Baseline == "":
		return errors.New("--baseline is required (a file path or s3://bucket/key)")
	}
	return nil
}

func (o *gateOptions) run(ctx context.Context, out io.Writer) error {
	cur, err := results.Load(o.Results)
	if err != nil {
		return o.inputError("", err)
	}
	store, err := gate.OpenStore(ctx, o.Baseline, o.S3)
	if err != nil {
		return o.inputError(cur.Scenario.Name, err)
	}
	var base *results.Results
	if !o.UpdateBaseline {
		if base, err = store.Load(ctx); err != nil {
			if errors.Is(err, gate.ErrNoBaseline) {
				err = fmt.Errorf("%w; record one with --update-baseline", err)
			}
			return o.inputError(cur.Scenario.Name, err)
		}
	}
	rep, err := gate.Evaluate(cur, base)
	if err != nil && !gate.IsViolation(err) {
		return o.inputError(cur.Scenario.Name, err)
	}
	if werr := gate.WriteTable(out, rep); werr != nil {
		return werr
	}
	if o.JUnit != "" {
		if werr := writeFile(o.JUnit, func(w io.Writer) error { return gate.WriteJUnit(w, rep) }); werr != nil {
			return badInput(werr)
		}
	}
	if err != nil {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if o.UpdateBaseline {
		if err := store.Save(ctx, cur); err != nil {
			return badInput(err)
		}
		fmt.Fprintf(out, "baseline updated: %s\n", store)
		return nil
	}
	fmt.Fprintf(out, "gate passed: %d checks against %s\n", len(rep.Checks), store)
	return nil
}

// inputError records a gate that could not run in the JUnit file too, and marks it exit 2.
func (o *gateOptions) inputError(scenario string, err error) error {
	if o.JUnit != "" {
		if werr := writeFile(o.JUnit, func(w io.Writer) error { return gate.WriteJUnitError(w, scenario, err) }); werr != nil {
			err = errors.Join(err, werr)
		}
	}
	return badInput(err)
}

func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

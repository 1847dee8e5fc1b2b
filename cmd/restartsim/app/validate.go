package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/scenarios"
	"github.com/restartsim/restartsim/sim"
	"github.com/restartsim/restartsim/sim/scenario"
)

func init() { subcommands = append(subcommands, newValidateCommand) }

// validateOptions are the flags of `restartsim validate`.
type validateOptions struct {
	File          string
	Format        string
	Kubeconfig    string
	EnvtestAssets string
}

func newValidateCommand() *cobra.Command {
	o := &validateOptions{}
	cmd := &cobra.Command{
		Use:   "validate -f SCENARIO",
		Short: "Check a scenario file as simulate would before it starts, starting and creating nothing",
		Long: `Run every check simulate makes before it starts anything: strict decoding, validation, object
templates and CEL conditions compiled against the CRDs, templates rendered with the values known
before the start, the executables the strategies run, AWS operations named as mutations. Nothing is
started or created. Exit codes: 0 valid, 2 not (every problem listed, at file:line:column and field).`,
		Example: `  restartsim validate -f scenarios/quickstart.yaml
  restartsim validate -f my.yaml --format json   # for editors and CI
  generate-scenario | restartsim validate -f -`,
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
func (o *validateOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.File, "file", "f", "", "scenario file (- reads standard input)")
	fs.StringVar(&o.Format, "format", "text", "text, or json: a list of {file, line, column, field, message} (empty when valid)")
	fs.StringVar(&o.Kubeconfig, "kubeconfig", "", "check as for simulate --kubeconfig (the file only; the cluster is not contacted)")
	fs.StringVar(&o.EnvtestAssets, "envtest-assets", "", "check as for simulate --envtest-assets")
}

// Validate checks the flags.
func (o *validateOptions) Validate() error {
	if o.File == "" {
		return errors.New("-f SCENARIO is required")
	}
	if o.Format != "text" && o.Format != "json" {
		return fmt.Errorf("--format %q: want text or json", o.Format)
	}
	return nil
}

func (o *validateOptions) run(ctx context.Context, out io.Writer) error {
	sc, err := loadAndCheck(ctx, o.File, sim.Options{ScenarioFile: o.File, Kubeconfig: o.Kubeconfig, AssetsDir: o.EnvtestAssets})
	if ctx.Err() != nil {
		return err
	}
	if o.Format == "json" {
		problems := problemsOf(scenario.DisplayName(o.File), err)
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if jerr := enc.Encode(problems); jerr != nil {
			return jerr
		}
		if err != nil {
			return &ExitError{Code: ExitBadInput, Err: fmt.Errorf("%s: %s", scenario.DisplayName(o.File), countNoun(len(problems), "problem"))}
		}
		return nil
	}
	if err != nil {
		return badInput(err)
	}
	return printValid(out, o.File, sc)
}

// loadAndCheck parses a scenario file and runs every check a run makes before it starts (sim.Check
// with opts, their Scenario set to the one parsed): what simulate runs first and validate runs alone,
// so both report the same problems.
func loadAndCheck(ctx context.Context, file string, opts sim.Options) (out *scenario.Scenario, err error) {
	var sc *scenario.Scenario
	if file == scenarios.QuickstartName {
		sc, err = scenario.ParsePartial(file, scenarios.Quickstart)
	} else {
		sc, err = scenario.LoadPartial(ctx, file)
	}
	if sc == nil {
		return nil, err
	}
	opts.Scenario = sc
	if err != nil {
		defer func() {
			// Check expects a valid scenario; on one with problems, whatever it trips over
			// follows from them.
			if recover() != nil {
				out = nil
			}
		}()
	}
	cerr := sim.Check(opts)
	if err == nil {
		if cerr != nil {
			return nil, cerr
		}
		return sc, nil
	}
	// The file has problems already: add those Check found at other fields (a missing executable,
	// say), leaving out what only follows from the file's own.
	var list scenario.ErrorList
	errors.As(err, &list)
	var more scenario.ErrorList
	if errors.As(cerr, &more) {
		for _, e := range more {
			if !slices.ContainsFunc(list, func(f *scenario.FieldError) bool { return f.Path == e.Path }) {
				list = append(list, e)
			}
		}
	}
	return nil, list
}

// printValid says that a scenario passed every check.
func printValid(out io.Writer, file string, sc *scenario.Scenario) error {
	_, err := fmt.Fprintf(out, "%s: valid (scenario %s, strategies %v)\n", scenario.DisplayName(file), sc.Name, sc.StrategyNames())
	return err
}

// problem is one entry of validate --format json.
type problem struct {
	File    string `json:"file"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// problemsOf lists err's problems: each of a scenario.ErrorList, or err as one problem of file.
func problemsOf(file string, err error) []problem {
	out := []problem{}
	if err == nil {
		return out
	}
	var list scenario.ErrorList
	if !errors.As(err, &list) {
		return append(out, problem{File: file, Message: err.Error()})
	}
	for _, e := range list {
		out = append(out, problem{File: e.File, Line: e.Line, Column: e.Column, Field: e.Path, Message: e.Msg})
	}
	return out
}

// countNoun is "1 problem", "2 problems".
func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

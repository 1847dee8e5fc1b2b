package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/results"
)

func init() { subcommands = append(subcommands, newReportCommand) }

// TimeseriesFile is the name of the time series written beside results.json.
const TimeseriesFile = "timeseries.csv"

// reportOptions are the flags of `restartsim report`.
type reportOptions struct {
	// Results is the results.json to render; timeseries.csv is read from the same directory.
	Results string
	// OutDir receives the PNGs and report.html. Default: the directory of Results.
	OutDir string
}

func newReportCommand() *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:   "report -f RESULTS [-o DIR]",
		Short: "Render PNG figures and a self-contained HTML report from a results.json (exit 0 ok, 1 a file could not be written, 2 bad input)",
		Example: `  # Re-render a run's report after an upgrade, beside its results.json
  restartsim report -f out/quickstart/20261201T130238Z/results.json

  # Into another directory
  restartsim report -f out/quickstart/20261201T130238Z/results.json -o /tmp/report`,
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
func (o *reportOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.Results, "file", "f", "", "results.json to render (timeseries.csv is read from beside it)")
	fs.StringVarP(&o.OutDir, "out", "o", "", "directory for the PNGs and report.html (default: the directory of --file)")
	addDeprecatedShorthand(fs, "input", "i", "file")
	addDeprecatedAlias(fs, "output", "out")
}

// Validate checks the flags and applies defaults.
func (o *reportOptions) Validate() error {
	if o.Results == "" {
		return errors.New("-f RESULTS is required")
	}
	if o.OutDir == "" {
		if o.Results == "-" {
			return errors.New("-f - (results on standard input) needs -o DIR for the report")
		}
		o.OutDir = filepath.Dir(o.Results)
	}
	return nil
}

func (o *reportOptions) run(_ context.Context, out io.Writer) error {
	r, err := results.Load(o.Results)
	if err != nil {
		return badInput(err)
	}
	var ts []results.Sample
	if o.Results != "-" { // beside a results file only
		ts, err = readTimeseries(filepath.Join(filepath.Dir(o.Results), TimeseriesFile))
	}
	if err != nil {
		return badInput(err)
	}
	files, err := reports.Render(r, ts, o.OutDir)
	if outfile.IsError(err) {
		return &ExitError{Code: ExitFailure, Err: err}
	}
	if err != nil {
		return badInput(err)
	}
	for _, f := range files.Figures {
		fmt.Fprintf(out, "wrote %s\n", f.Path)
	}
	for _, s := range files.Skipped {
		fmt.Fprintf(out, "skipped %s: %s\n", s.ID, s.Reason)
	}
	fmt.Fprintf(out, "wrote %s\n", files.HTML)
	return nil
}

// readTimeseries reads timeseries.csv; a missing file yields no samples (the report then
// skips the time-series figures and says so).
func readTimeseries(path string) ([]results.Sample, error) {
	ts, err := results.LoadCSV(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return ts, err
}

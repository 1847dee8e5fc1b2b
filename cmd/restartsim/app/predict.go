package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/predict"
)

func init() { subcommands = append(subcommands, newPredictCommand) }

// ExitUnexplained: the model does not fit the run it was given, so it predicts nothing.
const ExitUnexplained = 5

// predictOptions are the flags of `restartsim predict`.
type predictOptions struct {
	Results  string
	Strategy string
	Sizes    []int
	Orders   int
	Seed     uint64
	Format   string
}

func newPredictCommand() *cobra.Command {
	o := &predictOptions{}
	cmd := &cobra.Command{
		Use:   "predict -f RESULTS --size N",
		Short: "Forecast a restart at a larger fleet from one run's AWS call log (exit 0 forecast, 1 error, 2 bad input, 5 the model cannot explain the run)",
		Long: `predict fits a restart-queue model to one measured run: each resource kind's calls per object during
the replacement's re-read, its workers and pace, the start-up before the first AWS call and the throttle
buckets in force. It first runs the model at the run's own size and compares it with what was measured;
a run it cannot explain within 25 % is refused with the reason. Otherwise it simulates the restart queue at
each --size (in the run's fleet terms: TargetGroupBindings, or the largest object group) and prints blind
time p50/p95, TTFMR, steady state and AWS calls. Blind times come with the central 95 % over random queue
orders: a controller's queue is not in name order, so where a change waits is luck.`,
		Example: `  # A run at 300 TargetGroups, forecast at 3,000 and 10,000
  restartsim predict -f out/ack-restart/20261205T020000Z/results.json --size 3000 --size 10000

  # One strategy of a multi-strategy run, as JSON
  restartsim predict -f out/quickstart/20261205T005704Z/results.json --strategy no-checkpoint --size 2000 --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(); err != nil {
				return badInput(err)
			}
			return o.run(cmd.OutOrStdout())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the flags.
func (o *predictOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.Results, "file", "f", "", "results.json of the run to fit (its strategy's aws-calls.jsonl is read from beside it)")
	fs.StringVar(&o.Strategy, "strategy", "", "the strategy to fit (needed when the run has several)")
	fs.IntSliceVar(&o.Sizes, "size", nil, "fleet size to forecast (repeatable)")
	fs.IntVar(&o.Orders, "orders", 400, "random queue orders drawn for the blind-time spread")
	fs.Uint64Var(&o.Seed, "seed", 1, "seed of the queue-order draw")
	fs.StringVar(&o.Format, "format", "text", "text, or json: {model, check, forecasts}")
}

// Validate checks the flags.
func (o *predictOptions) Validate() error {
	switch {
	case o.Results == "":
		return errors.New("-f RESULTS is required")
	case len(o.Sizes) == 0:
		return errors.New("--size N is required")
	case o.Orders < 1 || o.Orders > predict.MaxOrders:
		return fmt.Errorf("--orders %d: must be 1 to %d", o.Orders, predict.MaxOrders)
	case o.Format != "text" && o.Format != "json":
		return fmt.Errorf("--format %q: text or json", o.Format)
	}
	for _, n := range o.Sizes {
		if n < 1 || n > predict.MaxSize {
			return fmt.Errorf("--size %d: a fleet of 1 to %d (a scenario's predict.sizes has the same bound)", n, predict.MaxSize)
		}
	}
	return nil
}

func (o *predictOptions) run(out io.Writer) error {
	run, err := predict.Load(o.Results, o.Strategy)
	if err != nil {
		return badInput(err)
	}
	m, err := predict.Fit(run)
	var why *predict.Unexplained
	if errors.As(err, &why) {
		return &ExitError{Code: ExitUnexplained, Err: err}
	}
	if err != nil {
		return badInput(err)
	}
	check, err := m.Explain()
	if o.Format == "text" {
		m.WriteModel(out)
		check.WriteCheck(out, m.Fleet)
	}
	if err != nil {
		return &ExitError{Code: ExitUnexplained, Err: err}
	}
	var forecasts []predict.Forecast
	for _, n := range o.Sizes {
		f, err := m.Forecast(n, o.Orders, o.Seed)
		if err != nil {
			return &ExitError{Code: ExitFailure, Err: err}
		}
		forecasts = append(forecasts, f)
		if o.Format == "text" {
			f.WriteForecast(out, m.FleetName)
		}
	}
	if o.Format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Model     *predict.Model     `json:"model"`
			Check     predict.Check      `json:"check"`
			Forecasts []predict.Forecast `json:"forecasts"`
		}{m, check, forecasts})
	}
	return nil
}

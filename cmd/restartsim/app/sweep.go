package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"sigs.k8s.io/yaml"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/reports"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim"
	"github.com/restartsim/restartsim/sim/scenario"
)

func init() { subcommands = append(subcommands, newSweepCommand) }

// sweepOptions are the flags of `restartsim sweep`.
type sweepOptions struct {
	// File is the scenario template; fleet.targetGroupBindings and name are replaced per size.
	File string
	// Parallel is how many strategy runs of one size run side by side.
	Parallel int
	// Sizes are the fleet sizes, ascending. Default 100,1000,10000.
	Sizes []int
	// OutDir is the output root. Default out.
	OutDir string
	// EnvtestAssets overrides the kube-apiserver/etcd directory.
	EnvtestAssets string
	// ProfileDir, when set, receives <dir>/<size>/cpu.pprof, heap.pprof and heap-peak.pprof per size.
	ProfileDir string
	// NoReport skips the per-size reports (the sweep report is always rendered).
	NoReport bool
	// FreshFleets creates the fleet for every strategy instead of once per seed.
	FreshFleets bool
	// SetupMemory is the shared fleet's setup memory limit (sim.Options.SetupMemoryLimit).
	SetupMemory memoryLimit

	template map[string]any
}

func newSweepCommand() *cobra.Command {
	o := &sweepOptions{}
	cmd := &cobra.Command{
		Use:   "sweep -f SCENARIO --sizes 100,1000,10000",
		Short: "Run a scenario at several fleet sizes and merge TTFMR per strategy into one results.json (figure 5)",
		Long: `Run the scenario once per fleet size (fleet.targetGroupBindings replaced; namespaces and other
fleet defaults re-derived for each size), each into out/<name>-<size>/<timestamp>/ with its own
results.json and report, then write out/<name>-sweep/<timestamp>/results.json: the largest size's
results with "sweep" filled (TTFMR per strategy per size, wall seconds and peak RSS per size in the
printed table), and render its report. Invariant or threshold violations of a size are reported and
the sweep goes on; the exit code is the worst one.`,
		Example: `  # TTFMR at 100, 1,000 and 10,000 bindings (about 20 minutes on 2 cores)
  restartsim sweep -f scenarios/scale-sweep.yaml --sizes 100,1000,10000

  # A quick look at two sizes, without the per-size reports
  restartsim sweep -f scenarios/quickstart.yaml --sizes 100,200 --no-report -o /tmp/sweep`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := o.Validate(cmd.Context()); err != nil {
				return badInput(err)
			}
			return o.run(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	o.AddFlags(cmd.Flags())
	return cmd
}

// AddFlags registers the flags.
func (o *sweepOptions) AddFlags(fs *pflag.FlagSet) {
	fs.StringVarP(&o.File, "file", "f", "", "scenario template (YAML, apiVersion restartsim/v1)")
	fs.IntSliceVar(&o.Sizes, "sizes", []int{100, 1000, 10000}, "fleet sizes (TGBs), run in ascending order")
	fs.StringVarP(&o.OutDir, "out", "o", "out", "output root")
	fs.StringVar(&o.EnvtestAssets, "envtest-assets", "", "directory holding kube-apiserver and etcd")
	fs.StringVar(&o.ProfileDir, "profile-dir", "", "write pprof profiles per size into <dir>/<size>/ (cpu.pprof, heap.pprof, heap-peak.pprof)")
	fs.BoolVar(&o.NoReport, "no-report", false, "skip the per-size reports (the sweep report is still rendered)")
	fs.BoolVar(&o.FreshFleets, "fresh-fleets", false, freshFleetsHelp)
	fs.Var(&o.SetupMemory, "setup-memory-limit", setupMemoryLimitHelp)
	fs.IntVar(&o.Parallel, "parallel", 0, parallelHelp+" (default: an A/B scenario's ab.parallel, else 1)"+"; the sizes still run one after another")
}

// Validate checks the flags and that the template parses at every size; reading the template
// gives up when ctx ends.
func (o *sweepOptions) Validate(ctx context.Context) error {
	if err := sim.CheckParallel(o.Parallel); err != nil {
		return err
	}
	if o.File == "" {
		return errors.New("-f SCENARIO is required")
	}
	if len(o.Sizes) == 0 {
		return errors.New("--sizes needs at least one size")
	}
	sort.Ints(o.Sizes)
	data, err := scenario.ReadFile(ctx, o.File)
	if err != nil {
		return err
	}
	if err := yaml.Unmarshal(data, &o.template); err != nil {
		return fmt.Errorf("%s: %w", o.File, err)
	}
	for _, n := range o.Sizes {
		if n <= 0 {
			return fmt.Errorf("--sizes: %d is not a positive size", n)
		}
		if _, err := o.scenarioFor(n); err != nil {
			return err
		}
	}
	return nil
}

// scenarioFor re-parses the template with the fleet size and name replaced, so the defaults that
// depend on the size (namespaces, nodes) are derived again.
func (o *sweepOptions) scenarioFor(n int) (*scenario.Scenario, error) {
	doc := map[string]any{}
	for k, v := range o.template {
		doc[k] = v
	}
	fleet := map[string]any{}
	if f, ok := doc["fleet"].(map[string]any); ok {
		for k, v := range f {
			fleet[k] = v
		}
	}
	fleet["targetGroupBindings"] = n
	doc["fleet"] = fleet
	doc["name"] = fmt.Sprintf("%v-%d", doc["name"], n)
	data, err := yaml.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return scenario.Parse(o.File, data)
}

// sweepRow is one size's figures for the printed table.
type sweepRow struct {
	size  int
	wall  float64
	rss   int64
	ttfmr map[string]float64
	// predicted is the restart-queue model's TTFMR, fitted on the smallest size.
	predicted map[string]float64
	dir       string
	err       error
}

func (o *sweepOptions) run(ctx context.Context, stdout, stderr io.Writer) error {
	log, flush, err := newRunLogger(0)
	if err != nil {
		return err
	}
	defer flush()

	var (
		rows    []sweepRow
		largest *results.Results
		lastDir string
		worst   error
	)
	for _, n := range o.Sizes {
		sc, err := o.scenarioFor(n)
		if err != nil {
			return badInput(err)
		}
		var stop func()
		profileDir := ""
		if o.ProfileDir != "" {
			profileDir = filepath.Join(o.ProfileDir, strconv.Itoa(n))
			if stop, err = startProfiles(profileDir); err != nil {
				return badInput(err)
			}
		}
		fmt.Fprintf(stderr, "sweep: %d TGBs (%s)\n", n, sc.Name)
		rep, err := sim.Run(ctx, sim.Options{
			Scenario: sc, ScenarioFile: o.File, OutDir: o.OutDir, AssetsDir: o.EnvtestAssets,
			Stdout: stdout, Progress: stderr, Logger: log, Version: Version(), NoReport: o.NoReport, NoFleetSnapshot: o.FreshFleets,
			HeapPeakProfile: heapPeakFile(profileDir), SetupMemoryLimit: o.SetupMemory.bytes, Parallel: o.Parallel,
		})
		if stop != nil {
			stop()
		}
		if rep == nil || rep.Results == nil {
			return exitFor(fmt.Errorf("sweep at %d TGBs: %w", n, err))
		}
		if err != nil && worst == nil {
			worst = err
		}
		row := sweepRow{size: n, wall: rep.Results.Scenario.WallSeconds, rss: rep.Results.Environment.PeakRSSBytes,
			ttfmr: map[string]float64{}, dir: rep.Dir, err: err}
		for _, s := range rep.Results.Strategies {
			if s.Summary.TTFMRSeconds != nil {
				row.ttfmr[s.Name] = *s.Summary.TTFMRSeconds
			}
		}
		rows = append(rows, row)
		largest, lastDir = rep.Results, rep.Dir
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	forecastSweep(stdout, rows)
	dir, err := o.writeSweep(largest, lastDir, rows, stdout)
	if err != nil {
		return err
	}
	printSweep(stdout, largest, rows)
	fmt.Fprintf(stdout, "sweep output: %s\n", dir)
	return exitFor(worst)
}

// writeSweep writes <out>/<name>-sweep/<timestamp>/results.json (the largest size's results with
// Sweep filled) beside a copy of its timeseries.csv, and renders the report.
func (o *sweepOptions) writeSweep(largest *results.Results, largestDir string, rows []sweepRow, stdout io.Writer) (string, error) {
	merged := *largest
	merged.Sweep = nil
	for _, r := range rows {
		merged.Sweep = append(merged.Sweep, results.SweepPoint{TGBs: r.size, TTFMRByStr: r.ttfmr, PredictedTTFMRByStr: r.predicted})
	}
	name := strings.TrimSuffix(largest.Scenario.Name, "-"+strconv.Itoa(rows[len(rows)-1].size))
	merged.Scenario.Name = name + "-sweep"
	// The merged file is checked as report and gate will read it, so nothing is written that they refuse.
	if err := merged.Validate(); err != nil {
		return "", badInput(fmt.Errorf("sweep results: %w", err))
	}
	dir := filepath.Join(o.OutDir, merged.Scenario.Name, time.Now().UTC().Format("20060102T150405Z"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := merged.Save(filepath.Join(dir, "results.json")); err != nil {
		return "", err
	}
	var ts []results.Sample
	if data, err := os.ReadFile(filepath.Join(largestDir, TimeseriesFile)); err == nil {
		if err := outfile.WriteBytes(outfile.Disk{}, filepath.Join(dir, TimeseriesFile), data); err != nil {
			return "", err
		}
		if ts, err = readTimeseries(filepath.Join(dir, TimeseriesFile)); err != nil {
			return "", err
		}
	}
	files, err := reports.Render(&merged, ts, dir)
	if err != nil {
		return "", fmt.Errorf("rendering the sweep report: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %s\n", files.HTML)
	return dir, nil
}

// printSweep prints one line per size: wall, peak RSS and TTFMR per strategy, plus each
// strategy's TTFMR relative to the first strategy's and to its own at the smallest size.
func printSweep(w io.Writer, r *results.Results, rows []sweepRow) {
	var names []string
	for _, s := range r.Strategies {
		names = append(names, s.Name)
	}
	fmt.Fprintf(w, "%8s %8s %9s", "TGBs", "wall", "peakRSS")
	for _, n := range names {
		fmt.Fprintf(w, " %14s %8s %8s", "ttfmr:"+n, "/"+names[0], "/size0")
	}
	fmt.Fprintln(w)
	for _, row := range rows {
		fmt.Fprintf(w, "%8d %7.0fs %8.2fG", row.size, row.wall, float64(row.rss)/(1<<30))
		for _, n := range names {
			v, ok := row.ttfmr[n]
			if !ok {
				fmt.Fprintf(w, " %14s %8s %8s", "-", "-", "-")
				continue
			}
			rel, own := "-", "-"
			if b, ok := row.ttfmr[names[0]]; ok && b > 0 {
				rel = fmt.Sprintf("%.3f", v/b)
			}
			if b, ok := rows[0].ttfmr[n]; ok && b > 0 {
				own = fmt.Sprintf("%.2f", v/b)
			}
			fmt.Fprintf(w, " %13.1fs %8s %8s", v, rel, own)
		}
		if row.err != nil {
			fmt.Fprintf(w, "  (%v)", row.err)
		}
		fmt.Fprintln(w)
	}
}

package predict

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// WriteModel prints the fitted model, so a reader sees why the forecast says what it says.
func (m *Model) WriteModel(w io.Writer) {
	fmt.Fprintf(w, "fitted on strategy %s: %d %s, throttle profile %s\n", m.Strategy, m.Fleet, m.FleetName, m.Profile)
	fmt.Fprintf(w, "  start-up  %.1f s from the restart's origin to the re-read's first AWS call", m.Start)
	if m.CacheSync > 0 {
		fmt.Fprintf(w, " (%.1f s of it filling caches, which grows with the fleet)", m.CacheSync)
	}
	fmt.Fprintf(w, "\n  re-read   %.1f s, then %.1f s to the steady state; %d calls, %d throttled\n", m.Drain, m.Settle, m.Calls, m.Throttled)
	switch {
	case m.Throttled > 0 && m.PaceScale != 1:
		fmt.Fprintf(w, "  pace      the calm gaps' pace × %.2f: with it the model turns away %d calls at %d, as AWS did %d\n",
			m.PaceScale, m.ModelThrottled, m.Fleet, m.Throttled)
	case m.Throttled > 0:
		fmt.Fprintf(w, "  pace      the calm gaps' pace: the model turns away %d calls at %d where AWS did %d, and no pace from a tenth to three times makes it\n",
			m.ModelThrottled, m.Fleet, m.Throttled)
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  kind\tobjects\tworkers\tpace\tthrottled, backoff\tcalls an object")
	for _, k := range m.Kinds {
		grow := "fixed"
		if k.Scales {
			grow = "scales"
		}
		var calls []string
		for _, b := range k.PerObject {
			name := b.Bucket
			if name == "" {
				name = "unthrottled"
			}
			calls = append(calls, fmt.Sprintf("%.2f %s", b.Calls, name))
		}
		fmt.Fprintf(tw, "  %s\t%d (%s)\t%d\t%.3f s\t%.2f, %.2f s\t%s\n", k.Name, k.Objects, grow, k.Workers, k.Pace, k.Throttled, k.Backoff, strings.Join(calls, ", "))
	}
	_ = tw.Flush()
	names := make([]string, 0, len(m.Buckets))
	for b := range m.Buckets {
		names = append(names, b)
	}
	slices.Sort(names)
	var bs []string
	for _, b := range names {
		bs = append(bs, fmt.Sprintf("%s %g/s burst %g", b, m.Buckets[b].Rate, m.Buckets[b].Burst))
	}
	if len(bs) > 0 {
		fmt.Fprintf(w, "  buckets   %s\n", strings.Join(bs, "; "))
	}
}

// WriteCheck prints the model against the run it was fitted on.
func (c Check) WriteCheck(w io.Writer, fleet int) {
	fmt.Fprintf(w, "check at %d: re-read %.1f s measured, %.1f s modelled", fleet, c.Drain, c.ModelDrain)
	if len(c.Changes) == 0 {
		fmt.Fprintln(w, "; no change placed in a queue")
		return
	}
	fmt.Fprintf(w, "; %d changes placed, miss %.0f %% (the larger of the re-read's and the median change's)\n", len(c.Changes), 100*c.Residual())
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  change\tkind\tposition\tblind measured\tmodelled")
	for _, ch := range c.Changes {
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%.1f s\t%.1f s\n", ch.ID, ch.Kind, ch.Position, *ch.Blind, ch.Model)
	}
	_ = tw.Flush()
}

// WriteForecast prints one forecast.
func (f Forecast) WriteForecast(w io.Writer, fleetName string) {
	fmt.Fprintf(w, "forecast at %d %s (%d random queue orders; in brackets, 95 %% of orders):\n", f.Size, fleetName, f.Orders)
	fmt.Fprintf(w, "  start-up      %.1f s\n", f.Start)
	if f.Orders > 0 && f.BlindP50.Median+f.BlindP95.Median > 0 {
		fmt.Fprintf(w, "  blind p50     %s\n  blind p95     %s\n  TTFMR         %s\n", f.BlindP50, f.BlindP95, f.TTFMR)
	}
	fmt.Fprintf(w, "  steady state  %.1f s\n", f.Steady)
	names := make([]string, 0, len(f.Calls))
	total := 0
	for b, n := range f.Calls {
		names = append(names, b)
		total += n
	}
	slices.Sort(names)
	var parts []string
	for _, b := range names {
		label := b
		if label == "" {
			label = "unthrottled"
		}
		parts = append(parts, fmt.Sprintf("%d %s", f.Calls[b], label))
	}
	throttled := 0
	for _, n := range f.Throttled {
		throttled += n
	}
	fmt.Fprintf(w, "  AWS calls     %d in the re-read (%s), and %d throttled\n", total, strings.Join(parts, ", "), throttled)
}

func (s Spread) String() string {
	return fmt.Sprintf("%.1f s [%.1f, %.1f]", s.Median, s.Low, s.High)
}

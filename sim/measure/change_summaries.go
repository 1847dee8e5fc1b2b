package measure

import "github.com/restartsim/restartsim/results"

// changeLatency is measureChangeLatency's result.
type changeLatency struct {
	changes   []results.Change
	unapplied []results.UnappliedChange
	latency   results.Quantiles
	// applied is when AWS reflected each of Input.Changes, by index (nil: never): the change
	// timings blind time is measured from.
	applied []*float64
}

func (c changeLatency) addTo(out *Output) {
	out.Changes = append(out.Changes, c.changes...)
	out.Unapplied = c.unapplied
	out.Summary.ChangeLatency = c.latency
	out.Summary.UnappliedChanges = len(c.unapplied)
}

// firstMeaningful is measureTTFMR's result.
type firstMeaningful struct {
	// at is the scenario second of the first restart's first meaningful mutation, unrounded (nil:
	// none): the end of the windows the restart's costs are counted in.
	at    *float64
	ttfmr *float64
	// perRestart is each restart's first within its window, by index.
	perRestart []*float64
}

func (f firstMeaningful) addTo(out *Output) { out.Summary.TTFMRSeconds = f.ttfmr }

// driftRepair is measureDriftRepair's result.
type driftRepair struct {
	repairs []results.Change
	latency results.Quantiles
}

func (d driftRepair) addTo(out *Output) {
	out.Changes = append(out.Changes, d.repairs...)
	out.Summary.DriftRepair = d.latency
}

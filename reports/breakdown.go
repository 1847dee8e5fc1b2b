package reports

import (
	"fmt"
	"strings"

	"github.com/restartsim/restartsim/reports/internal/dataset"
	"github.com/restartsim/restartsim/results"
)

// maxChangeRows caps the per-change table of each strategy.
const maxChangeRows = 100

// breakdownRow is one restart of a strategy split into its steps. Each step's cell is the time
// since the previous step the controller exposes, and when it happened.
type breakdownRow struct {
	Strategy string
	// Restart names the restart when the strategy restarted more than once ("restart 2 of 3").
	Restart string
	Steps   []stepCell
	// Blind is the blind time, which the first restart's changes measure (empty for later ones).
	Blind string
	// Story is where the time went, in words.
	Story string
}

type stepCell struct {
	Delta, At string // Delta empty: the step is unknown, At says why
	Known     bool
}

// breakdownSteps names the columns of the breakdown table.
var breakdownSteps = []string{"old instance stopped", "process started", "lease acquired", "caches synced",
	"first AWS call", "first meaningful AWS mutation"}

// restartsOf is every restart's phases; results written before they were recorded per restart
// hold the first only.
func restartsOf(s *results.Strategy) []results.RestartPhases {
	switch {
	case len(s.Restarts) > 0:
		return s.Restarts
	case s.Restart != nil:
		return []results.RestartPhases{*s.Restart}
	}
	return nil
}

func breakdownRows(r *results.Results) []breakdownRow {
	var rows []breakdownRow
	for i := range r.Strategies {
		s := &r.Strategies[i]
		all := restartsOf(s)
		for k := range all {
			row := breakdownRow{Strategy: s.Name, Steps: stepCells(s, &all[k]), Story: whereTimeGoes(s, &all[k], k)}
			if k == 0 {
				row.Blind = blindCell(s.Summary)
			}
			if len(all) > 1 {
				row.Restart = fmt.Sprintf("restart %d of %d", k+1, len(all))
			}
			rows = append(rows, row)
		}
	}
	return rows
}

// stepCells are the cells of one restart's steps.
func stepCells(s *results.Strategy, ph *results.RestartPhases) []stepCell {
	lease := "no leader election"
	switch {
	case ph.LeaderElection:
		lease = "never"
	case s.Config["args"] != "": // an external controller: the scenario names no Lease
		lease = "unknown (no Lease named)"
	}
	steps := []struct {
		at      *float64
		unknown string
		service string // the AWS service of a call
	}{
		{&ph.StoppedSeconds, "", ""},
		{&ph.StartedSeconds, "", ""},
		{ph.LeadingSeconds, lease, ""},
		{ph.CachesSyncedSeconds, "unknown (not logged)", ""},
		{ph.FirstAWSCallSeconds, "never", ph.FirstAWSCallService},
		{ph.FirstMeaningfulSeconds, "never", ""},
	}
	var cells []stepCell
	prev := ph.StoppedSeconds
	for i, st := range steps {
		if st.at == nil {
			cells = append(cells, stepCell{At: st.unknown})
			continue
		}
		c := stepCell{Known: true, At: "at " + fmtSeconds(*st.at)}
		if st.service != "" {
			c.At += " (" + st.service + ")"
		}
		if d := *st.at - prev; i > 0 && d < 0 {
			c.Delta = "−" + fmtDelta(-d) // a step a controller logs after the next one (another controller's call)
		} else if i > 0 {
			c.Delta = "+" + fmtDelta(d)
		}
		prev = *st.at
		cells = append(cells, c)
	}
	return cells
}

func blindCell(s results.Summary) string {
	q := s.BlindTime
	switch {
	case s.BlindTimeChanges == 0:
		return "no change during the restart"
	case q.Count == 0:
		return "never"
	}
	cell := fmt.Sprintf("%s / %s", fmtBound(q.P50, q.P50Censored), fmtBound(q.P95, q.P95Censored))
	if applied := q.Count - q.Censored; applied < s.BlindTimeChanges {
		cell += fmt.Sprintf(" (%d of %d applied)", applied, s.BlindTimeChanges)
	}
	return cell
}

// changeTable is one strategy's changes, made and applied.
type changeTable struct {
	Strategy string
	Rows     []changeRow
	More     int
	// Unapplied is how many changes AWS did not show when the run ended, and Expected whether
	// the scenario expects them.
	Unapplied int
	Expected  bool
}

type changeRow struct {
	// Object is the TargetGroupBinding changed, or "Ingress namespace/name".
	ID, Kind, Object, Made, Applied, Latency string
	OfRestart                                bool
	// Unapplied marks a change AWS did not show when the run ended.
	Unapplied bool
}

func changeTables(r *results.Results) []changeTable {
	var out []changeTable
	for _, s := range r.Strategies {
		t := changeTable{Strategy: s.Name, Unapplied: len(s.Unapplied)}
		_, t.Expected = s.UnappliedAllowed()
		unapplied := unappliedByID(&s)
		for _, c := range s.Changes {
			if len(t.Rows) == maxChangeRows {
				t.More++
				continue
			}
			object := c.TGB
			switch {
			case c.Ingress != "":
				object = "Ingress " + c.Ingress
			case c.Object != "":
				object = c.Object // group/namespace/name
			}
			row := changeRow{ID: c.ID, Kind: c.Kind, Object: object, Made: fmtSeconds(c.AtSeconds), Applied: optSeconds(c.AppliedSeconds),
				Latency: optSeconds(c.LatencySeconds), OfRestart: s.Restart != nil && dataset.OfRestart(s.Restart, c)}
			if u, ok := unapplied[c.ID]; ok {
				row.Applied, row.Latency, row.Unapplied = "not applied by the end ("+fmtSeconds(u.CensoredSeconds)+")", fmtBound(u.NotAppliedAfterSeconds, true), true
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

// whereTimeGoes says in words where a strategy's restart (the k-th, from 0) spent its blind
// time, so an external controller's Lease wait, cache sync and reconcile compare with the
// reference's.
func whereTimeGoes(s *results.Strategy, ph *results.RestartPhases, k int) string {
	parts := []string{fmt.Sprintf("its process started %s after the stop", fmtDelta(ph.StartedSeconds-ph.StoppedSeconds))}
	if ph.OriginSeconds > ph.StoppedSeconds {
		parts[0] += fmt.Sprintf(" (%s of it the scenario's downtime, which blind time does not count)", fmtDelta(ph.OriginSeconds-ph.StoppedSeconds))
	}
	prev := ph.StartedSeconds
	// did holds %s for the delta with its direction: later, or earlier ("before that") for a step
	// logged after the next one.
	step := func(at *float64, did, unknown string) {
		switch {
		case at != nil && *at < prev:
			parts = append(parts, fmt.Sprintf(did, fmtDelta(prev-*at)+" earlier"))
			prev = *at
		case at != nil:
			parts = append(parts, fmt.Sprintf(did, fmtDelta(*at-prev)+" later"))
			prev = *at
		case unknown != "":
			parts = append(parts, unknown)
		}
	}
	if ph.LeaderElection && ph.LeadingSeconds != nil {
		if at := ph.LeaseRequestedSeconds; at != nil && *at >= prev && *at <= *ph.LeadingSeconds {
			// client-go counts a held Lease's expiry from this first request: a slower start waits longer.
			parts = append(parts, fmt.Sprintf("first asked for the Lease %s later", fmtDelta(*at-prev)))
			prev = *at
		}
		parts = append(parts, fmt.Sprintf("waited %s for the Lease", fmtDelta(*ph.LeadingSeconds-prev)))
		prev = *ph.LeadingSeconds
	} else if ph.LeaderElection {
		parts = append(parts, "never acquired the Lease")
	}
	step(ph.CachesSyncedSeconds, "synced its caches %s", "did not log its cache sync")
	step(ph.FirstAWSCallSeconds, "reached AWS %s", "")
	step(ph.FirstMeaningfulSeconds, "applied the first pending change %s", "never applied a pending change")
	if k > 0 {
		return fmt.Sprintf("%s, restart %d (at %s): %s.", s.Name, k+1, fmtSeconds(ph.StoppedSeconds), strings.Join(parts, ", "))
	}
	out := s.Name + ": " + strings.Join(parts, ", ")
	if q := s.Summary.BlindTime; q.Count > 0 {
		out += fmt.Sprintf("; the median change made during the restart waited %s", fmtDelta(q.P50))
	}
	return out + "."
}

// fmtDelta writes a duration for people: milliseconds below a second, else seconds to 0.01.
func fmtDelta(v float64) string {
	if v < 1 {
		return fmt.Sprintf("%.0f ms", v*1000)
	}
	return fmt.Sprintf("%.2f s", v)
}

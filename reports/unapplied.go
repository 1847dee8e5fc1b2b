package reports

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// fmtBound formats seconds, as "> v s" when the figure is only a lower bound (a change never
// applied within the run reaches it).
func fmtBound(v float64, lower bool) string {
	if lower {
		return "> " + fmtSeconds(v)
	}
	return fmtSeconds(v)
}

// htmlBound is fmtBound for the verdict's HTML.
func htmlBound(v float64, lower bool) string { return template.HTMLEscapeString(fmtBound(v, lower)) }

// unappliedPhrase is the verdict's sentence on the changes strategies left unapplied (empty when
// none did): how many, how long they had waited, and whether the scenario expects them.
func unappliedPhrase(r *results.Results) string {
	var parts []string
	for i := range r.Strategies {
		s := &r.Strategies[i]
		n := s.MostUnapplied()
		if n == 0 {
			continue
		}
		p := fmt.Sprintf("<b>%s</b> left %d of %d changes unapplied", template.HTMLEscapeString(s.Name), n, len(s.Changes))
		if w, ok := shortestWait(s.Unapplied); ok {
			p += fmt.Sprintf(" (not applied after %s)", fmtSeconds(w))
		}
		if limit, declared := s.UnappliedAllowed(); declared {
			p += fmt.Sprintf(", as the scenario expects (up to %d)", limit)
		} else {
			p += `, <span class="fail">a finding</span>`
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		return ""
	}
	return "AWS never showed every change: " + strings.Join(parts, "; ") + "."
}

// shortestWait is the least any of the changes had waited when the run ended: each waited at
// least that long.
func shortestWait(us []results.UnappliedChange) (float64, bool) {
	if len(us) == 0 {
		return 0, false
	}
	w := us[0].NotAppliedAfterSeconds
	for _, u := range us[1:] {
		w = min(w, u.NotAppliedAfterSeconds)
	}
	return w, true
}

// unappliedByID indexes a strategy's unapplied changes for the changes table.
func unappliedByID(s *results.Strategy) map[string]results.UnappliedChange {
	m := make(map[string]results.UnappliedChange, len(s.Unapplied))
	for _, u := range s.Unapplied {
		m[u.ID] = u
	}
	return m
}

// leftUnapplied reports a strategy that left changes unapplied: it is not named fastest on
// the strength of the changes that did land.
func leftUnapplied(s *results.Strategy) bool {
	return s.MostUnapplied() > 0 || s.Summary.BlindTime.P50Censored
}

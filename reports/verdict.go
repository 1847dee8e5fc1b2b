package reports

import (
	"fmt"
	"html/template"
	"math"
	"sort"
	"strings"

	"github.com/restartsim/restartsim/results"
)

// headline is a strategy's figure the verdict ranks by: blind time's median, else TTFMR, else
// +Inf (it never applied a change after the restart).
func headline(s *results.Strategy) float64 {
	switch {
	case s.Summary.BlindTime.Count > 0:
		return s.Summary.BlindTime.P50
	case s.Summary.TTFMRSeconds != nil:
		return *s.Summary.TTFMRSeconds
	}
	return math.Inf(1)
}

// ranked returns the strategies, fastest to recover first; those that left changes unapplied come
// after every one that applied all of its changes, however fast the changes that landed were.
func ranked(r *results.Results) []*results.Strategy {
	out := make([]*results.Strategy, len(r.Strategies))
	for i := range r.Strategies {
		out[i] = &r.Strategies[i]
	}
	sort.SliceStable(out, func(a, b int) bool {
		if la, lb := leftUnapplied(out[a]), leftUnapplied(out[b]); la != lb {
			return lb
		}
		return headline(out[a]) < headline(out[b])
	})
	return out
}

// verdict is the report's opening paragraph: for an A/B run the comparison's outcome first; then
// which strategy recovers fastest, how long it is blind, what its restart costs in AWS calls and
// Kubernetes writes, and how it fares against the scenario's limits.
func verdict(r *results.Results, gates []gateRow, ab *abView) template.HTML {
	order := ranked(r)
	best := order[0]
	var b strings.Builder
	switch {
	case ab == nil:
	case ab.Error != "":
		b.WriteString(`A/B comparison <span class="fail">not judged</span>: ` + template.HTMLEscapeString(ab.Error) + ". ")
	default:
		b.WriteString("A/B comparison: " + string(ab.Summary) + " ")
	}
	s := best.Summary
	esc := template.HTMLEscapeString
	if math.IsInf(headline(best), 1) {
		// Blind time follows the changes the harness times: target changes (a binding's endpoints),
		// and Ingress-side changes where it can read the load balancers (an in-process fakeaws). A
		// run may change other things, whose application the steady state covers.
		b.WriteString("No strategy applied a change the harness times (a binding's endpoints; an Ingress's load balancer with an in-process fakeaws) after the restart within the run.")
		var steady []string
		for _, o := range r.Strategies {
			if v := o.Summary.SteadyStateSeconds; v != nil {
				steady = append(steady, fmt.Sprintf("%s %s", esc(o.Name), fmtSeconds(*v)))
			}
		}
		if len(steady) > 0 {
			fmt.Fprintf(&b, " Steady state (every invariant holds, nothing pending): %s.", strings.Join(steady, ", "))
		}
	} else {
		if leftUnapplied(best) {
			// Every strategy left changes unapplied: none is named fastest for the changes that landed.
			fmt.Fprintf(&b, "No strategy applied every change within the run. <b>%s</b>: %s", esc(best.Name), blindPhrase(s))
		} else {
			fmt.Fprintf(&b, "<b>%s</b> recovers fastest from the restart: %s", esc(best.Name), blindPhrase(s))
		}
		var others []string
		for _, o := range order[1:] {
			others = append(others, fmt.Sprintf("%s for %s", headlineValue(o), esc(o.Name)))
		}
		if len(others) > 0 {
			fmt.Fprintf(&b, ", against %s", strings.Join(others, ", "))
		}
		b.WriteString(". ")
		fmt.Fprintf(&b, "Its restart cost %d AWS calls before its first meaningful mutation (%d throttled; %d calls in the whole run) and %d Kubernetes writes (%d checkpoint patches).",
			total(s.AWSCallsBeforeFirstMeaningful), s.ThrottledBeforeFirstMeaningful, total(s.AWSCalls), s.K8sWrites.Total(), s.K8sWrites.CheckpointPatches)
	}
	if p := unappliedPhrase(r); p != "" {
		b.WriteString(" " + p)
	}
	b.WriteString(" " + limitsPhrase(r, gates))
	return template.HTML(b.String())
}

func blindPhrase(s results.Summary) string {
	if s.BlindTime.Count == 0 {
		return fmt.Sprintf("its first meaningful mutation came %s after the restart (TTFMR; no change was made during the restart)", optSeconds(s.TTFMRSeconds))
	}
	q := s.BlindTime
	p := fmt.Sprintf("the changes made during its restart reached AWS after <b>%s</b> (blind time, median of %d; p95 %s)",
		htmlBound(q.P50, q.P50Censored), q.Count, htmlBound(q.P95, q.P95Censored))
	if q.Censored > 0 {
		p = fmt.Sprintf("the changes made during its restart reached AWS after <b>%s</b> (blind time, median of %d, %d of them never applied and counted until the run's end; p95 %s)",
			htmlBound(q.P50, q.P50Censored), q.Count, q.Censored, htmlBound(q.P95, q.P95Censored))
	}
	if n := s.BlindTimeChanges - q.Count; n > 0 {
		p += fmt.Sprintf(", %d never", n)
	}
	return p
}

func headlineValue(s *results.Strategy) string {
	v := headline(s)
	switch {
	case math.IsInf(v, 1):
		return "never"
	case s.Summary.BlindTime.Count > 0:
		return htmlBound(v, s.Summary.BlindTime.P50Censored)
	}
	return fmtSeconds(v)
}

// limitsPhrase sums up thresholds, invariants and gate rules.
func limitsPhrase(r *results.Results, gates []gateRow) string {
	var thr, thrFailed int
	var broken []string
	for _, s := range r.Strategies {
		for _, t := range s.Thresholds {
			thr++
			if !t.Passed {
				thrFailed++
			}
		}
		if !s.Invariants.Passed {
			broken = append(broken, s.Name)
		}
	}
	var parts []string
	if thr > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d thresholds passed", thr-thrFailed, thr))
	}
	switch {
	case len(broken) == 0 && unappliedPhrase(r) != "":
		parts = append(parts, "invariants held, but not every change reached AWS (above)")
	case len(broken) == 0:
		parts = append(parts, "the end state was correct for every strategy (invariants held)")
	default:
		parts = append(parts, fmt.Sprintf("invariants were violated by %s", template.HTMLEscapeString(strings.Join(broken, ", "))))
	}
	judged, failed := 0, 0
	for _, g := range gates {
		if g.Verdict != verdictNeedsBaseline {
			judged++
		}
		if g.Failed {
			failed++
		}
	}
	if judged > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d CI gate rules judged without a baseline passed", judged-failed, judged))
	}
	return "Limits: " + strings.Join(parts, "; ") + "."
}

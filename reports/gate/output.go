package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteTable writes the A/B comparison (when there is one), then one line per rule: strategy,
// metric, baseline, current, limit, verdict.
func WriteTable(w io.Writer, r *Report) error {
	if len(r.AB) > 0 {
		if err := writeABTable(w, r.AB); err != nil {
			return err
		}
		if r.ABOutcome != nil {
			writeABVerdict(w, r.ABOutcome)
		}
		if len(r.Checks) == 0 {
			return nil
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "STRATEGY\tMETRIC\tBASELINE\tCURRENT\tLIMIT\tVERDICT")
	for _, c := range r.Checks {
		m := c.Rule.Metric
		if c.Rule.RelativeTo != "" {
			m += " ÷ " + c.Rule.RelativeTo
		}
		base := "-"
		if c.Baseline != nil {
			base = bound(*c.Baseline, c.BaselineLowerBound)
		}
		verdict := string(c.Verdict)
		if c.Reason != "" {
			verdict += ": " + c.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Rule.Strategy, m, base, bound(c.Current, c.CurrentLowerBound), format(c.Limit), verdict)
	}
	return tw.Flush()
}

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Errors   int    `xml:"errors,attr"`
	Skipped  int    `xml:"skipped,attr,omitempty"`
	// Properties describe the A/B verdict and the runs' machines.
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	SystemOut  string           `xml:"system-out,omitempty"`
}

type junitCase struct {
	Name      string `xml:"name,attr"`
	ClassName string `xml:"classname,attr"`
	// Time carries the gated value of a *_seconds metric (the candidate's median for A/B checks),
	// so a CI server's test-duration history charts it.
	Time       string           `xml:"time,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Failure    *junitProblem    `xml:"failure,omitempty"`
	Error      *junitProblem    `xml:"error,omitempty"`
	Skipped    *junitProblem    `xml:"skipped,omitempty"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// props builds a testcase's properties from name, value pairs.
func props(kv ...string) *junitProperties {
	p := &junitProperties{}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Property = append(p.Property, junitProperty{Name: kv[i], Value: kv[i+1]})
	}
	return p
}

// junitTime is the testcase time of a metric's value: the value for seconds, 0 otherwise.
func junitTime(metric string, v float64) string {
	if !strings.HasSuffix(metric, "_seconds") || math.IsInf(v, 0) || math.IsNaN(v) {
		return "0"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test case per check with its values as
// properties, failed checks as failures, and the table as system-out.
func WriteJUnit(w io.Writer, r *Report) error {
	suite := junitSuite{Name: "restartsim gate: " + r.Scenario, Tests: len(r.Checks) + len(r.AB), Properties: machineProperties(r.Machines)}
	for _, c := range r.AB {
		tc := abCase(r.Scenario, c)
		suite.Cases = append(suite.Cases, tc)
		switch {
		case tc.Failure != nil:
			suite.Failures++
		case tc.Error != nil:
			suite.Errors++
		case tc.Skipped != nil:
			suite.Skipped++
		}
	}
	if o := r.ABOutcome; o != nil {
		ab := props("ab.verdict", string(o.Verdict), "ab.reason", o.Reason, "ab.advice", o.Advice,
			"ab.decided", strings.Join(o.Decided, "\n"), "ab.undecided", strings.Join(o.Undecided, "\n"),
			"ab.runsPerSide", strconv.Itoa(o.Runs), "ab.look", fmt.Sprintf("%d of %d", o.Look+1, o.Plan.Looks()))
		if suite.Properties != nil {
			ab.Property = append(ab.Property, suite.Properties.Property...)
		}
		suite.Properties = ab
	}
	for _, c := range r.Checks {
		base := "-"
		if c.Baseline != nil {
			base = bound(*c.Baseline, c.BaselineLowerBound)
		}
		tc := junitCase{Name: c.Name(), ClassName: "restartsim.gate." + r.Scenario, Time: junitTime(c.Rule.Metric, c.Current),
			Properties: props("current", bound(c.Current, c.CurrentLowerBound), "baseline", base, "limit", format(c.Limit), "verdict", string(c.Verdict))}
		if c.Verdict == Fail {
			suite.Failures++
			rel := ">"
			if c.Current <= c.Limit { // a lower bound under the limit: it cannot be shown within it
				rel = "vs"
			}
			msg := fmt.Sprintf("%s = %s %s limit %s: %s", c.Name(), bound(c.Current, c.CurrentLowerBound), rel, format(c.Limit), c.Reason)
			tc.Failure = &junitProblem{Message: msg, Type: "regression", Text: msg}
		}
		suite.Cases = append(suite.Cases, tc)
	}
	var table strings.Builder
	if err := WriteTable(&table, r); err != nil {
		return err
	}
	suite.SystemOut = table.String()
	return writeSuites(w, suite)
}

// WriteJUnitError writes JUnit XML with one errored test case, for a gate that could not run
// (kind "input": bad input or environment) or a run the candidate broke (kind "regression"), so CI
// shows why.
func WriteJUnitError(w io.Writer, scenario, kind string, err error) error {
	suite := junitSuite{Name: "restartsim gate: " + scenario, Tests: 1, Errors: 1, Cases: []junitCase{{
		Name: "gate", ClassName: "restartsim.gate." + scenario, Time: "0",
		Error: &junitProblem{Message: err.Error(), Type: kind, Text: err.Error()},
	}}}
	return writeSuites(w, suite)
}

func writeSuites(w io.Writer, s junitSuite) error {
	doc := junitSuites{Name: "restartsim gate", Tests: s.Tests, Failures: s.Failures, Errors: s.Errors, Suites: []junitSuite{s}}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// writeABTable writes one line per A/B metric: the medians with their intervals, the ratio and
// the difference with their intervals, the p-value of the last look against its level, the
// check's weight, the limit on the candidate's median and the verdict with its reason.
func writeABTable(w io.Writer, checks []ABCheck) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "A/B METRIC\tBASELINE median [95%]\tCANDIDATE median [95%]\tRATIO [95%]\tDIFF [95%]\tP ≤ LEVEL\tWEIGHT\tLIMIT\tVERDICT")
	for _, c := range checks {
		if c.Skipped {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\t-\t-\tskipped: %s\n", c.Metric.Metric, c.Reason)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.2g ≤ %.2g\t%s\t%s\t%s\n", c.Metric.Metric, c.BaselineMedian, c.CandidateMedian,
			"×"+c.Ratio.String(), signed(c.Diff), c.P, c.Level, weightText(c), format(c.Limit()), abVerdict(c))
	}
	return tw.Flush()
}

// writeABVerdict writes the comparison's verdict, why, and what to do when it is inconclusive.
func writeABVerdict(w io.Writer, o *ABOutcome) {
	fmt.Fprintf(w, "A/B verdict: %s after %d + %d runs (look %d of %d): %s\n", o.Verdict, o.Runs, o.Runs, o.Look+1, o.Plan.Looks(), o.Reason)
	for _, d := range o.Decided {
		fmt.Fprintf(w, "Decided by: %s\n", d)
	}
	for _, u := range o.Undecided {
		fmt.Fprintf(w, "Undecided: %s\n", u)
	}
	if o.Advice != "" {
		fmt.Fprintf(w, "What to do: %s\n", o.Advice)
	}
	for _, c := range o.Checks {
		if !c.Skipped && c.Weight < c.Metric.AlphaWeight() {
			fmt.Fprintf(w, "Weight: %s weighs %.2g instead of %s: its spread within each side at the first look allows only %.0f%% of the resolution its minimum effect needs within %d runs per side%s\n",
				c.Metric.Metric, c.Weight, format(c.Metric.AlphaWeight()), c.Resolution*100, o.Plan.Runs(o.Plan.Looks()-1), map[bool]string{true: "", false: " (reported; it holds a pass back only when it looks worse than its minimum effect)"}[c.Required])
		}
	}
}

// weightText is a check's share of alpha as used, with its configured one when the spread lowered it.
func weightText(c ABCheck) string {
	if c.Weight < c.Metric.AlphaWeight() {
		return fmt.Sprintf("%.2g (of %s)", c.Weight, format(c.Metric.AlphaWeight()))
	}
	return format(c.Weight)
}

// signed prints a difference with its interval, with a sign.
func signed(iv Interval) string {
	f := func(v float64) string {
		switch {
		case math.IsInf(v, 1):
			return "+inf"
		case math.IsInf(v, -1):
			return "-inf"
		case math.IsNaN(v):
			return "?"
		case v > 0:
			return "+" + format(v)
		}
		return format(v)
	}
	return fmt.Sprintf("%s [%s, %s]", f(iv.Center), f(iv.Lo), f(iv.Hi))
}

// String prints a value with its interval; a bound too few runs cannot give is "?", a value of
// runs that never reached the event "never".
func (iv Interval) String() string {
	f := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return "?"
		}
		return format(v)
	}
	c := f(iv.Center)
	if math.IsInf(iv.Center, 1) {
		c = "never"
	}
	return fmt.Sprintf("%s [%s, %s]", c, f(iv.Lo), f(iv.Hi))
}

// abVerdict is the verdict column: the verdict and why.
func abVerdict(c ABCheck) string {
	v := string(c.Verdict)
	if c.Verdict == Inconclusive && !c.Blocks() {
		v += " (not required)"
	}
	if c.Reason != "" {
		v += ": " + c.Reason
	}
	return v
}

func abCase(scenario string, c ABCheck) junitCase {
	tc := junitCase{Name: c.Name(), ClassName: "restartsim.gate." + scenario, Time: junitTime(c.Metric.Metric, c.CandidateMedian.Center)}
	if c.Skipped {
		tc.Skipped = &junitProblem{Message: c.Reason, Type: "not-measured"}
		return tc
	}
	join := func(v []float64) string {
		s := make([]string, len(v))
		for i, x := range v {
			s[i] = format(x)
		}
		return strings.Join(s, " ")
	}
	tc.Properties = props("baselineMedian", c.BaselineMedian.String(), "candidateMedian", c.CandidateMedian.String(),
		"ratio", c.Ratio.String(), "diff", signed(c.Diff), "p", fmt.Sprintf("%.3g", c.P), "level", fmt.Sprintf("%.3g", c.Level),
		"weight", fmt.Sprintf("%.3g", c.Weight), "limit", format(c.Limit()), "baseline", join(c.Baseline), "candidate", join(c.Candidate),
		"verdict", string(c.Verdict), "reason", c.Reason)
	msg := fmt.Sprintf("%s: candidate median %s vs baseline %s: %s", c.Name(), format(c.CandidateMedian.Center), format(c.BaselineMedian.Center), c.Reason)
	switch {
	case c.Verdict == Fail:
		tc.Failure = &junitProblem{Message: msg, Type: "regression", Text: msg}
	case c.Blocks():
		// An error, not a skip: CI servers show errors as prominently as failures.
		tc.Error = &junitProblem{Message: "INCONCLUSIVE: " + msg, Type: "inconclusive", Text: msg}
	case c.Verdict == Inconclusive:
		tc.Skipped = &junitProblem{Message: "INCONCLUSIVE (not required): " + msg, Type: "inconclusive"}
	}
	return tc
}

// bound formats a figure, as "> v" when it is only a lower bound (a change never applied).
func bound(v float64, lower bool) string {
	if lower {
		return "> " + format(v)
	}
	return format(v)
}

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
			base = format(*c.Baseline)
		}
		verdict := string(c.Verdict)
		if c.Reason != "" {
			verdict += ": " + c.Reason
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", c.Rule.Strategy, m, base, format(c.Current), format(c.Limit), verdict)
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
	// Properties describe the A/B runs' machines.
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
		suite.Cases = append(suite.Cases, abCase(r.Scenario, c))
		if c.Verdict == Fail {
			suite.Failures++
		}
	}
	for _, c := range r.Checks {
		base := "-"
		if c.Baseline != nil {
			base = format(*c.Baseline)
		}
		tc := junitCase{Name: c.Name(), ClassName: "restartsim.gate." + r.Scenario, Time: junitTime(c.Rule.Metric, c.Current),
			Properties: props("current", format(c.Current), "baseline", base, "limit", format(c.Limit), "verdict", string(c.Verdict))}
		if c.Verdict == Fail {
			suite.Failures++
			msg := fmt.Sprintf("%s = %s > limit %s: %s", c.Name(), format(c.Current), format(c.Limit), c.Reason)
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

// writeABTable writes one line per A/B metric: the medians with their intervals, the ratio with
// its interval, the Holm-adjusted p-value, the limit on the candidate's median and the verdict.
func writeABTable(w io.Writer, checks []ABCheck) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "A/B METRIC\tBASELINE median [95%]\tCANDIDATE median [95%]\tRATIO [95%]\tP (Holm)\tLIMIT\tVERDICT")
	for _, c := range checks {
		if c.Skipped {
			fmt.Fprintf(tw, "%s\t-\t-\t-\t-\t-\tskipped: %s\n", c.Metric.Metric, c.Reason)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2g\t%s\t%s\n", c.Metric.Metric, c.BaselineMedian, c.CandidateMedian,
			"×"+c.Ratio.String(), c.PAdjusted, format(c.Limit()), abVerdict(c))
	}
	return tw.Flush()
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

// abVerdict is the verdict column: the verdict, and why for a failure.
func abVerdict(c ABCheck) string {
	if c.Verdict == Fail {
		return string(c.Verdict) + ": " + c.Reason
	}
	return string(c.Verdict)
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
		"ratio", c.Ratio.String(), "p", fmt.Sprintf("%.3g", c.P), "pHolm", fmt.Sprintf("%.3g", c.PAdjusted),
		"limit", format(c.Limit()), "baseline", join(c.Baseline), "candidate", join(c.Candidate),
		"verdict", string(c.Verdict))
	if c.Verdict == Fail {
		msg := fmt.Sprintf("%s: candidate median %s vs baseline %s: %s", c.Name(), format(c.CandidateMedian.Center), format(c.BaselineMedian.Center), c.Reason)
		tc.Failure = &junitProblem{Message: msg, Type: "regression", Text: msg}
	}
	return tc
}

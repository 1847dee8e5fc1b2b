package gate

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes one line per check: strategy, metric, baseline, current, limit, verdict.
func WriteTable(w io.Writer, r *Report) error {
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
	Name      string      `xml:"name,attr"`
	Tests     int         `xml:"tests,attr"`
	Failures  int         `xml:"failures,attr"`
	Errors    int         `xml:"errors,attr"`
	Cases     []junitCase `xml:"testcase"`
	SystemOut string      `xml:"system-out,omitempty"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one test case per check, failed checks as
// failures, and the table as system-out.
func WriteJUnit(w io.Writer, r *Report) error {
	suite := junitSuite{Name: "restartsim gate: " + r.Scenario, Tests: len(r.Checks)}
	for _, c := range r.Checks {
		tc := junitCase{Name: c.Name(), ClassName: "restartsim.gate." + r.Scenario}
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
// (bad input), so CI shows why.
func WriteJUnitError(w io.Writer, scenario string, err error) error {
	suite := junitSuite{Name: "restartsim gate: " + scenario, Tests: 1, Errors: 1, Cases: []junitCase{{
		Name: "gate", ClassName: "restartsim.gate." + scenario,
		Error: &junitProblem{Message: err.Error(), Type: "input", Text: err.Error()},
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

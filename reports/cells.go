package reports

import (
	"regexp"
	"strings"
)

// unitSpace, boundSpace and interval match what one value of a table cell spans: a number and its
// unit ("1.5 s", "300 ms"), a lower bound's sign ("> 4 s"), a confidence interval ("[1.4, 2.3]").
var (
	unitSpace  = regexp.MustCompile(`(\d) (ms|s|min|h)\b`)
	boundSpace = regexp.MustCompile(`> (\d)`)
	interval   = regexp.MustCompile(`\[[^\]]*\]`)
)

// keepValues makes those spaces non-breaking, and binds a separating slash to the value before it,
// so a cell allowed to wrap (to fit the window) breaks only between values ("1 s /" then "2 s"),
// never inside an interval, parting a number from its unit or leaving a slash on a line of its own.
func keepValues(s string) string {
	s = unitSpace.ReplaceAllString(s, "$1\u00a0$2")
	s = boundSpace.ReplaceAllString(s, ">\u00a0$1")
	s = interval.ReplaceAllStringFunc(s, func(iv string) string { return strings.ReplaceAll(iv, " ", "\u00a0") })
	return strings.ReplaceAll(s, " / ", "\u00a0/ ")
}

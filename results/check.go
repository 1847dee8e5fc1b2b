package results

import (
	"fmt"
	"math"
	"strings"
)

// checker collects the problems of one results.json.
type checker struct {
	problems []string
}

func (c *checker) addf(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: c.problems}
}

// within checks that v is a number in [lo, hi].
func (c *checker) within(path string, v, lo, hi float64) {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		c.addf(path, "%g is not a finite number", v)
	case v < lo && lo == 0:
		c.addf(path, "%g is negative", v)
	case v < lo || v > hi:
		c.addf(path, "%g is outside [%g, %g]", v, lo, hi)
	}
}

// seconds checks a time or a duration: [0, MaxSeconds].
func (c *checker) seconds(path string, v float64) {
	if v > MaxSeconds && !math.IsInf(v, 0) {
		c.addf(path, "%g s is more than %d days", v, MaxSeconds/86400)
		return
	}
	c.within(path, v, 0, MaxSeconds)
}

func (c *checker) optSeconds(path string, v *float64) {
	if v != nil {
		c.seconds(path, *v)
	}
}

// value checks a figure of any unit (a limit, a ratio, an effect): [0, maxValue].
func (c *checker) value(path string, v float64) { c.within(path, v, 0, maxValue) }

func (c *checker) optValue(path string, v *float64) {
	if v != nil {
		c.value(path, *v)
	}
}

func (c *checker) count(path string, v int) { c.within(path, float64(v), 0, MaxCount) }

func (c *checker) optCount(path string, v *int) {
	if v != nil {
		c.count(path, *v)
	}
}

func (c *checker) counts(path string, m map[string]int) {
	for k, v := range m {
		c.count(fmt.Sprintf("%s[%q]", path, trunc(k)), v)
	}
}

func (c *checker) bytes(path string, v int64) { c.within(path, float64(v), 0, maxBytes) }

func (c *checker) name(path, s string) {
	if len(s) > MaxNameBytes {
		c.addf(path, "%d bytes, more than %d", len(s), MaxNameBytes)
	}
}

// required checks that s holds more than white space, and reports whether it does.
func (c *checker) required(path, s, missing string) bool {
	if strings.TrimSpace(s) == "" {
		c.addf(path, "%s", missing)
		return false
	}
	return true
}

// length checks a list's length and reports whether it is within max.
func (c *checker) length(path string, n, max int) bool {
	if n > max {
		c.addf(path, "%d entries, more than %d", n, max)
		return false
	}
	return true
}

// ValidationError lists what is out of bounds in a results.json, each problem at its JSON path.
type ValidationError struct {
	Problems []string
}

func (e *ValidationError) Error() string {
	shown := e.Problems
	more := ""
	if len(shown) > maxProblems {
		shown, more = shown[:maxProblems], fmt.Sprintf("; and %d more", len(e.Problems)-maxProblems)
	}
	return "corrupted: " + strings.Join(shown, "; ") + more
}

// trunc shortens s for an error message.
func trunc(s string) string {
	if len(s) <= 64 {
		return s
	}
	return s[:64] + "…"
}

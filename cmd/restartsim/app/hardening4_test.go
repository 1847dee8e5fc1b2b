package app

import (
	"strings"
	"testing"
	"time"
)

// predict refuses a size or an order count past its bounds with exit 2 before it reads anything, so
// neither can run out of memory (--size 1e12 did) or compute for minutes (--orders 1e8 did).
func TestPredictBounds(t *testing.T) {
	results := "../../../predict/testdata/quickstart/results.json"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--size", "1000000000000"}, "--size 1000000000000: a fleet of 1 to 10000000"},
		{[]string{"--size", "10000001"}, "--size 10000001"},
		{[]string{"--size", "0"}, "--size 0"},
		{[]string{"--size", "1000", "--orders", "100000000"}, "--orders 100000000: must be 1 to 10000"},
		{[]string{"--size", "1000", "--orders", "0"}, "--orders 0"},
	} {
		start := time.Now()
		code, _, err := runCLI(t, append([]string{"predict", "-f", results}, tc.args...)...)
		if code != ExitBadInput || !strings.Contains(err, tc.want) {
			t.Errorf("predict %v: exit %d, %q; want exit %d naming %q", tc.args, code, err, ExitBadInput, tc.want)
		}
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("predict %v took %v to refuse", tc.args, d)
		}
	}
}

// --format json's error counts its problems in English.
func TestValidateJSONCountsOneProblem(t *testing.T) {
	_, _, err := runCLI(t, "validate", "-f", "testdata/bad/count-zero-churn.yaml", "--format", "json")
	if strings.Contains(err, "1 problems") {
		t.Errorf("error %q says \"1 problems\"", err)
	}
	if !strings.Contains(err, "problem") {
		t.Errorf("error %q does not count the problems", err)
	}
}

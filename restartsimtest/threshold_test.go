package restartsimtest_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/restartsimtest"
)

// recorder is a testing.TB that keeps the failures Run reports instead of failing the test.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Error(args ...any) { r.errors = append(r.errors, fmt.Sprint(args...)) }
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any) { r.fatals = append(r.fatals, fmt.Sprint(args...)) }

// TestThresholdBreachReportsTheNumbers runs the example with its blind-time limit tightened to
// 1 ms, below anything a restart can measure: Run must report that one threshold, naming the
// metric, the measured value and the limit, and nothing else.
func TestThresholdBreachReportsTheNumbers(t *testing.T) {
	testenv.RequireAssets(t)
	data, err := os.ReadFile("testdata/targetpools.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const limit = "{metric: blind_time_max_seconds, max: 30}"
	if !strings.Contains(string(data), limit) {
		t.Fatalf("testdata/targetpools.yaml no longer has %s", limit)
	}
	tight := strings.Replace(string(data), limit, "{metric: blind_time_max_seconds, max: 0.001}", 1)
	rec := &recorder{TB: t}
	res := restartsimtest.Run(rec, restartsimtest.YAML(tight), setupPools)
	if len(rec.fatals) > 0 || res == nil {
		t.Fatalf("the run failed: %v", rec.fatals)
	}
	s, _ := res.Summary("mine")
	want := fmt.Sprintf("strategy mine: threshold blind_time_max_seconds: value %g exceeds the limit 0.001", s.BlindTime.Max)
	if len(rec.errors) != 1 || rec.errors[0] != want {
		t.Errorf("reported %q, want exactly %q", rec.errors, want)
	}
}

package measure

import (
	"strings"
	"testing"

	"github.com/restartsim/restartsim/results"
)

func TestSaturationRule(t *testing.T) {
	for _, tc := range []struct {
		name string
		m    results.Machine
		want string // a part of the reason; "" for not saturated
	}{
		{"quiet", results.Machine{CPUs: 2, Load1Max: 1.2, SchedDelay: results.DelayQuantiles{Count: 9, P99: 0.4}}, ""},
		// The run's own processes keep the load near 3 on two cores: not judged.
		{"own load", results.Machine{CPUs: 2, Load1Max: 3.4, OtherCPUFraction: 0.05}, ""},
		{"others", results.Machine{CPUs: 2, Load1Max: 5, OtherCPUFraction: 0.4}, "other processes used 40 %"},
		{"delay", results.Machine{CPUs: 2, Load1Max: 1, SchedDelay: results.DelayQuantiles{Count: 9, P99: 12}}, "p99 12.0 ms"},
		{"steal", results.Machine{CPUs: 8, StealFraction: 0.2}, "steal 20 %"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sat, reason := Saturated(&tc.m)
			if sat != (tc.want != "") || !strings.Contains(reason, tc.want) {
				t.Fatalf("Saturated = %v, %q; want %q", sat, reason, tc.want)
			}
		})
	}
}

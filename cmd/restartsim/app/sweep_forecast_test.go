package app

import (
	"bytes"
	"strings"
	"testing"
)

// The recorded quickstart as a sweep's smallest size: its no-checkpoint restart is forecast at the
// larger size, longer than at its own, and the strategies the model cannot take say why.
func TestForecastSweepFromTheSmallestSize(t *testing.T) {
	rows := []sweepRow{{size: 200, dir: "../../../predict/testdata/quickstart"}, {size: 2000}}
	var out bytes.Buffer
	forecastSweep(&out, rows)
	small, large := rows[0].predicted["no-checkpoint"], rows[1].predicted["no-checkpoint"]
	if small <= 0 || large <= small {
		t.Fatalf("predicted TTFMR %v at 200 and %v at 2000, want both, the larger later\n%s", small, large, out.String())
	}
	if _, ok := rows[1].predicted["checkpoint"]; ok {
		t.Errorf("checkpoint forecast although the model cannot explain its restart\n%s", out.String())
	}
	for _, want := range []string{"forecast of no-checkpoint from 200 TGBs at 2000", "forecast of checkpoint from 200 TGBs: none: the model cannot explain", "forecast of compact: the AWS call log"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

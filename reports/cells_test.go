package reports

import (
	"strings"
	"testing"
)

func TestKeepValues(t *testing.T) {
	const nb = "\u00a0"
	for _, tc := range []struct{ in, want string }{
		{"1.27 s / 16.75 s", "1.27" + nb + "s" + nb + "/ 16.75" + nb + "s"},
		{"> 4 s / > 900 s (4 of 8 applied)", ">" + nb + "4" + nb + "s" + nb + "/ >" + nb + "900" + nb + "s (4 of 8 applied)"},
		{"300 ms", "300" + nb + "ms"},
		{"2 min", "2" + nb + "min"},
		{"1.538 [1.407, 2.29]", "1.538 [1.407," + nb + "2.29]"},
		{"×0.9 [0.6, 1] and [2, 3]", "×0.9 [0.6," + nb + "1] and [2," + nb + "3]"},
		// Words after a number are not units: the cell may wrap there.
		{"3 strategies", "3 strategies"},
		{"no change during the restart", "no change during the restart"},
		{"never", "never"},
		{"–", "–"},
	} {
		got := keepValues(tc.in)
		if got != tc.want {
			t.Errorf("keepValues(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.ReplaceAll(got, nb, " ") != tc.in {
			t.Errorf("keepValues(%q) changed more than spaces: %q", tc.in, got)
		}
	}
}

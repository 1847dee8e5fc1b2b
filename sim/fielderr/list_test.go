package fielderr

import (
	"fmt"
	"strings"
	"testing"
)

// A long list prints its first fifty problems and how many more there are.
func TestListCapped(t *testing.T) {
	for _, tc := range []struct {
		n        int
		more     string
		listed   int
		notShown string
	}{
		{n: 1, listed: 1},
		{n: 50, listed: 50},
		{n: 51, more: "and 1 more", listed: 50, notShown: "p50:"},
		{n: 120, more: "and 70 more", listed: 50, notShown: "p50:"},
	} {
		var l List
		for i := range tc.n {
			l = append(l, &Error{File: "f.yaml", Line: i + 1, Column: 1, Path: fmt.Sprintf("p%d", i), Msg: "bad"})
		}
		got := l.Error()
		if n := strings.Count(got, "f.yaml:"); n != tc.listed {
			t.Errorf("%d problems: %d listed, want %d", tc.n, n, tc.listed)
		}
		if tc.more != "" && !strings.HasSuffix(got, tc.more) {
			t.Errorf("%d problems: %q does not end with %q", tc.n, got[len(got)-40:], tc.more)
		}
		if tc.notShown != "" && strings.Contains(got, tc.notShown) {
			t.Errorf("%d problems: lists %q", tc.n, tc.notShown)
		}
	}
}

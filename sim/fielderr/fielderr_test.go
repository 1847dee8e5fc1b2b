package fielderr

import (
	"errors"
	"testing"
)

func TestErrorPlacesWhatIsKnown(t *testing.T) {
	for _, tc := range []struct {
		e    Error
		want string
	}{
		{Error{Msg: "bad"}, "bad"},
		{Error{Path: "fleet.objects[1].count", Msg: "bad"}, "fleet.objects[1].count: bad"},
		{Error{File: "s.yaml", Msg: "bad"}, "s.yaml: bad"},
		{Error{File: "s.yaml", Line: 3, Column: 5, Path: "timeline[2].mode", Msg: "bad"}, "s.yaml:3:5: timeline[2].mode: bad"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: got %q, want %q", tc.e, got, tc.want)
		}
	}
}

func TestListUnwrapsToItsProblems(t *testing.T) {
	var l List
	l.Addf("a", "one %d", 1)
	if got := l.Error(); got != "a: one 1" {
		t.Errorf("one problem: got %q", got)
	}
	var e *Error
	if !errors.As(error(l), &e) || e.Path != "a" {
		t.Errorf("errors.As found %v", e)
	}
}

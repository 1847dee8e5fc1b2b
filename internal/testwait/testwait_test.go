package testwait

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestScaleParsesTheMultiplier(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want float64
		bad  bool
	}{
		{v: "", want: 1}, {v: "3", want: 3}, {v: "0.5", want: 0.5},
		{v: "0", bad: true}, {v: "-2", bad: true}, {v: "NaN", bad: true}, {v: "Inf", bad: true}, {v: "three", bad: true},
	} {
		got, err := scale(tc.v)
		if (err != nil) != tc.bad || !tc.bad && got != tc.want {
			t.Errorf("scale(%q) = %v, %v; want %v (error %v)", tc.v, got, err, tc.want, tc.bad)
		}
		if tc.bad && (err == nil || !strings.Contains(err.Error(), ScaleEnv)) {
			t.Errorf("scale(%q): the error %v does not name %s", tc.v, err, ScaleEnv)
		}
	}
}

func TestScaleMultipliesTimeouts(t *testing.T) {
	t.Setenv(ScaleEnv, "2.5")
	if got := Scale(t, 10*time.Second); got != 25*time.Second {
		t.Fatalf("Scale(10s) with %s=2.5 = %v, want 25s", ScaleEnv, got)
	}
}

func TestUntilReturnsOnceTheConditionHolds(t *testing.T) {
	polls := 0
	Until(t, time.Minute, "the third poll", func() bool { polls++; return polls == 3 })
	if polls != 3 {
		t.Fatalf("polled %d times, want 3", polls)
	}
}

// fakeTB records a failure instead of ending the test.
type fakeTB struct {
	testing.TB
	failed string
}

func (f *fakeTB) Helper()                           {}
func (f *fakeTB) Fatalf(format string, args ...any) { f.failed = fmt.Sprintf(format, args...) }

func TestUntilDetailFailsWithTheLastReason(t *testing.T) {
	t.Setenv(ScaleEnv, "1") // the failure names the scaled limit; CI runs with a scale
	f := &fakeTB{TB: t}
	n := 0
	UntilDetail(f, time.Millisecond, "never", func() (bool, string) { n++; return false, "still " + strings.Repeat("x", n) })
	if !strings.HasPrefix(f.failed, "timed out after 1ms waiting for never: still x") {
		t.Fatalf("failure %q does not carry the condition's last reason", f.failed)
	}
}

package throttle

import (
	"testing"
	"time"
)

// Calls reach a bucket in another order than their arrival times. A call stamped before the bucket's
// last take is charged at that last take: it neither moves the bucket's clock back nor lets the next
// call be refilled again for the span between the two.
func TestOutOfOrderCallsAreNotRefilledTwice(t *testing.T) {
	th, err := New(ProfileDocumented, map[string]Limit{"Op": {Rate: 10, Burst: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	steps := []struct {
		at   time.Duration
		want bool
	}{
		{0, true},                        // one of the full bucket's two tokens
		{time.Second, true},              // full again by then: one left
		{500 * time.Millisecond, true},   // stamped earlier, taken after: the last token, at 1 s
		{1050 * time.Millisecond, false}, // half a token since 1 s, not 5.5 since 500 ms
		{1100 * time.Millisecond, true},
	}
	for _, s := range steps {
		if _, ok := th.Allow("elasticloadbalancing", "Op", false, t0.Add(s.at)); ok != s.want {
			t.Fatalf("call at +%v: allowed %v, want %v", s.at, ok, s.want)
		}
	}
}

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

// The EC2 actions AWS's request token table names have its figures, each in a bucket of its own;
// another mutating action keeps the mutating category's, per action.
func TestEC2ActionsWithFiguresOfTheirOwn(t *testing.T) {
	th, err := New(ProfileDocumented, nil)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		op         string
		key        string
		burst      int
		refillIn1s int
	}{
		{"RunInstances", EC2RunInstancesRequest, 5, 2},
		{"TerminateInstances", EC2TerminateInstancesRequest, 100, 5},
		{"CreateTags", EC2CreateTagsRequest, 100, 10},
		{"DeleteTags", EC2DeleteTagsRequest, 100, 10},
		{"CreateLaunchTemplate", EC2Mutating + "/CreateLaunchTemplate", 50, 5},
	} {
		take := func(at time.Time) bool {
			key, ok := th.Allow("ec2", c.op, false, at)
			if key != c.key {
				t.Fatalf("%s: bucket %q, want %q", c.op, key, c.key)
			}
			return ok
		}
		for i := range c.burst {
			if !take(t0) {
				t.Fatalf("%s: call %d of a full bucket of %d refused", c.op, i+1, c.burst)
			}
		}
		if take(t0) {
			t.Fatalf("%s: call %d allowed, past the bucket's %d", c.op, c.burst+1, c.burst)
		}
		for i := range c.refillIn1s {
			if !take(t0.Add(time.Second)) {
				t.Fatalf("%s: refill call %d of %d refused", c.op, i+1, c.refillIn1s)
			}
		}
		if take(t0.Add(time.Second)) {
			t.Fatalf("%s: more than %d a second refilled", c.op, c.refillIn1s)
		}
	}
}

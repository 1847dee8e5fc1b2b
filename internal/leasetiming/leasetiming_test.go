package leasetiming

import (
	"testing"
	"time"
)

func TestValidate(t *testing.T) {
	s := time.Second
	for _, tc := range []struct {
		lease, renew, retry time.Duration
		ok                  bool
	}{
		{0, 0, 0, true},                                 // controller-runtime's 15/10/2
		{5 * s, 3 * s, 1 * s, true},                     // a short lease
		{5 * s, 0, 0, false},                            // 5 s against the default 10 s renew deadline
		{10 * s, 10 * s, 1 * s, false},                  // lease must exceed renew
		{10 * s, 1200 * time.Millisecond, 1 * s, false}, // renew must exceed 1.2 × retry
		{10 * s, 1300 * time.Millisecond, 1 * s, true},
		{-s, 0, 0, false},
	} {
		if err := Validate(tc.lease, tc.renew, tc.retry); (err == nil) != tc.ok {
			t.Errorf("Validate(%v, %v, %v) = %v, want ok=%v", tc.lease, tc.renew, tc.retry, err, tc.ok)
		}
	}
}

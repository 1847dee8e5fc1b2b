package testwait

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// ScaleEnv names the environment variable that multiplies every timeout of this package (a positive
// number, default 1): RESTARTSIM_TEST_TIMEOUT_SCALE=3 gives a loaded 2-core machine three times longer.
const ScaleEnv = "RESTARTSIM_TEST_TIMEOUT_SCALE"

// Interval is how often a condition is polled.
const Interval = 25 * time.Millisecond

// Scale returns d multiplied by ScaleEnv; it fails tb when the variable is set but not a positive
// number, so a mistyped scale is not silently ignored.
func Scale(tb testing.TB, d time.Duration) time.Duration {
	tb.Helper()
	f, err := scale(os.Getenv(ScaleEnv))
	if err != nil {
		tb.Fatal(err)
	}
	return time.Duration(float64(d) * f)
}

func scale(v string) (float64, error) {
	if v == "" {
		return 1, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) || f > 1000 {
		return 0, fmt.Errorf("%s=%q: want a number above 0 and at most 1000", ScaleEnv, v)
	}
	return f, nil
}

// Until polls cond every Interval, at once first, until it holds; after Scale(timeout) it fails tb
// with what it waited for.
func Until(tb testing.TB, timeout time.Duration, what string, cond func() bool) {
	tb.Helper()
	UntilDetail(tb, timeout, what, func() (bool, string) { return cond(), "" })
}

// UntilDetail is Until for a condition that says why it does not hold yet; the last reason is in the
// failure.
func UntilDetail(tb testing.TB, timeout time.Duration, what string, cond func() (ok bool, detail string)) {
	tb.Helper()
	limit := Scale(tb, timeout)
	var detail string
	err := wait.PollUntilContextTimeout(context.Background(), Interval, limit, true, func(context.Context) (bool, error) {
		ok, d := cond()
		detail = d
		return ok, nil
	})
	if err != nil {
		if detail != "" {
			what += ": " + detail
		}
		tb.Fatalf("timed out after %v waiting for %s", limit, what)
	}
}

package sut

import (
	"time"

	"github.com/restartsim/restartsim/internal/throttlespec"
	"github.com/restartsim/restartsim/sim/scenario"
)

// RegistrationRate is how many RegisterTargets calls per scenario second an arm's controller makes
// at most: controller.registrationRate, else the reference strategy's client-side throttle, else
// LBC's default for an external controller.
func RegistrationRate(sc *scenario.Scenario, st scenario.Strategy, ext *scenario.External) float64 {
	if r := sc.Controller.RegistrationRate; r > 0 {
		return r
	}
	if ext != nil {
		return scenario.DefaultRegistrationRate
	}
	return throttleRegistrationRate(st.Throttle)
}

// throttleRegistrationRate is the rate of the client-side throttle entry (merged over the
// defaults, as the controller does) whose pattern matches RegisterTargets.
func throttleRegistrationRate(spec string) float64 {
	cfg, err := throttlespec.ParseWithDefaults(spec)
	if err != nil {
		return scenario.DefaultRegistrationRate
	}
	if r, ok := cfg.RateFor(throttlespec.ServiceIDELBv2, "RegisterTargets"); ok {
		return r
	}
	return scenario.DefaultRegistrationRate
}

// WarmupTimeout bounds a warm-up (or the fleet snapshot's convergence) of tgbs bindings by a
// controller registering at most rate targets calls per scenario second, on clock: each binding
// needs one RegisterTargets call, so the registrations alone take tgbs ÷ rate of scenario time;
// half as much again and a minute cover the describes, retries and gates. At least the fixed bound
// it replaces (3 minutes, 100 ms per binding).
func WarmupTimeout(tgbs int, rate float64, clock scenario.Clock) time.Duration {
	fixed := max(3*time.Minute, time.Duration(tgbs)*100*time.Millisecond)
	if rate <= 0 {
		return fixed
	}
	reg := clock.Wall(time.Duration(1.5*float64(tgbs)/rate*float64(time.Second))) + time.Minute
	return max(fixed, reg)
}

// FastestThrottle is the client-side throttle a fleet's one-off convergence runs with, and its
// registration rate: the throttle of the reference strategy that registers fastest (a strategy that raised its
// throttle converges as fast in its own warm-up), the default when none sets one.
func FastestThrottle(sc *scenario.Scenario) (string, float64) {
	throttle, rate := "", throttleRegistrationRate("")
	for _, st := range sc.Controller.Strategies {
		if st.External != nil {
			continue
		}
		if r := throttleRegistrationRate(st.Throttle); r > rate {
			throttle, rate = st.Throttle, r
		}
	}
	if r := sc.Controller.RegistrationRate; r > 0 {
		rate = r
	}
	return throttle, rate
}

package sut

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/sim/scenario"
)

func TestRegistrationRateAndWarmupTimeout(t *testing.T) {
	ref := func(throttle string) scenario.Strategy { return scenario.Strategy{Name: "s", Throttle: throttle} }
	sc := &scenario.Scenario{}
	for _, tc := range []struct {
		name string
		st   scenario.Strategy
		ext  *scenario.External
		set  float64
		want float64
	}{
		{"default throttle", ref(""), nil, 0, 4},
		{"raised registration", ref("Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=40:100"), nil, 0, 40},
		{"other service only", ref("EC2:^Describe.*=10:10"), nil, 0, 4},
		{"external", scenario.Strategy{Name: "x"}, &scenario.External{}, 0, 4},
		{"scenario field wins", ref("Elastic Load Balancing v2:^RegisterTargets=40:100"), nil, 2, 2},
	} {
		sc.Controller.RegistrationRate = tc.set
		if got := RegistrationRate(sc, tc.st, tc.ext); got != tc.want {
			t.Errorf("%s: rate %g, want %g", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		tgbs        int
		rate, scale float64
		want        time.Duration
	}{
		{200, 4, 5, 3 * time.Minute},                    // 10 s of registrations: the fixed floor
		{1000, 4, 1, 1.5*250*time.Second + time.Minute}, // LBC at 1,000: 250 s of registrations
		{10000, 4, 20, 1000 * time.Second},              // 125 s of registrations: 100 ms per binding
	} {
		if got := WarmupTimeout(tc.tgbs, tc.rate, scenario.NewClock(tc.scale, nil)); got != tc.want {
			t.Errorf("warmupTimeout(%d, %g, %g) = %s, want %s", tc.tgbs, tc.rate, tc.scale, got, tc.want)
		}
	}
	sc.Controller.RegistrationRate = 0
	sc.Controller.Strategies = []scenario.Strategy{ref(""), ref("Elastic Load Balancing v2:^RegisterTargets=40:100"), {Name: "x", External: &scenario.External{}}}
	if th, r := FastestThrottle(sc); r != 40 || th != sc.Controller.Strategies[1].Throttle {
		t.Errorf("FastestThrottle = %q %g, want the raised throttle at 40/s", th, r)
	}
}

package sut

import "testing"

func TestScaleThrottle(t *testing.T) {
	cases := []struct {
		spec  string
		scale float64
		want  string
	}{
		{"", 2, "Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=8:20,Elastic Load Balancing v2:^Describe.*=100:200,Elastic Load Balancing v2:^Modify.*=6:20"},
		{"EC2:^Describe.*=10:5", 1, "EC2:^Describe.*=10:5,Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=4:20,Elastic Load Balancing v2:^Describe.*=50:200,Elastic Load Balancing v2:^Modify.*=3:20"},
		{"Elastic Load Balancing v2:^Register.*=1:2", 10, "Elastic Load Balancing v2:^Register.*=10:2"},
	}
	for _, tc := range cases {
		got, err := scaleThrottle(tc.spec, tc.scale)
		if err != nil || got != tc.want {
			t.Errorf("scaleThrottle(%q, %g) = %q, %v; want %q", tc.spec, tc.scale, got, err, tc.want)
		}
	}
	// Each was accepted by one of the three parsers this one replaced and then failed, or ran unthrottled
	// or stalled, later in the run.
	for _, bad := range []string{"nonsense", "a:b=NaN:1", "EC2:.*=1e-300:5", "EC2:^Describe.*=1.2.3:5", "EC2:a=1:99999999999999999999"} {
		if _, err := scaleThrottle(bad, 1); err == nil {
			t.Errorf("scaleThrottle(%q): want an error", bad)
		}
	}
}

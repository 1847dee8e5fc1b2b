package throttlespec

import (
	"math"
	"testing"
)

// FuzzParse: Parse never panics, accepts only rules inside the bounds, and its String reads back the same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", "EC2:^Describe.*=10:20", "Elastic Load Balancing v2:^RegisterTargets|^DeregisterTargets=0.5:3",
		"a:b=NaN:1", "EC2:.*=1e-300:5", "EC2:^Describe.*=1.2.3:5", "EC2:a=1:99999999999999999999",
		"EC2:a=0x1p-2:1", "EC2:([=1:1", "EC2:a=1:1,", " EC2 : a = 1 : 1 ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cfg, err := Parse(s)
		if err != nil {
			return
		}
		for svc, rules := range cfg {
			for _, r := range rules {
				if math.IsNaN(r.Rate) || r.Rate < MinRate || r.Rate > MaxRate || r.Burst < 1 || r.Burst > MaxBurst {
					t.Fatalf("%q: rule %s %v accepted", s, svc, r)
				}
			}
		}
		again, err := Parse(cfg.String())
		if err != nil || again.String() != cfg.String() {
			t.Fatalf("%q: String %q reads back as %q, %v", s, cfg.String(), again.String(), err)
		}
	})
}

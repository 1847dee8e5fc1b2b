package sim

import "testing"

func TestEKSVersion(t *testing.T) {
	for in, want := range map[string]string{"v1.37.2": "1.37", "v1.34.0-rc.1": "1.34", "1.30": "1.30", "": "", "v2": ""} {
		if got := eksVersion(in); got != want {
			t.Errorf("eksVersion(%q) = %q, want %q", in, got, want)
		}
	}
}

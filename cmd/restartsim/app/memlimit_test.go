package app

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSetupMemoryLimitFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "1536Mi", want: 1536 << 20},
		{in: "2Gi", want: 2 << 30},
		{in: "0", want: -1},
		{in: "-1Gi", bad: true},
		{in: "1Mi", bad: true},
		{in: "lots", bad: true},
	} {
		var m memoryLimit
		err := m.Set(tc.in)
		if tc.bad != (err != nil) || !tc.bad && m.bytes != tc.want {
			t.Errorf("Set(%q) = %d, %v; want %d (bad %v)", tc.in, m.bytes, err, tc.want, tc.bad)
		}
	}
	// A bad value is bad input before anything starts.
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if code := Main([]string{"simulate", "-f", "../../../scenarios/quickstart.yaml", "--out", out, "--setup-memory-limit", "lots"}); code != ExitBadInput {
		t.Errorf("exit code %d, want %d", code, ExitBadInput)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("output folder was created for bad input: %v", err)
	}
}

package app

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Every command reports a failure the same way: one "error: " line, whichever command or layer
// (flags, input, run) failed.
func TestErrorsPrintOneStyle(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	for _, args := range [][]string{
		{"simulate", "-f", missing + ".yaml", "--out", missing},
		{"simulate", "--bogus"},
		{"simulate", "-f", "/dev/zero", "--out", missing},
		{"gate", "-f", missing + ".json"},
		{"gate", "--bogus"},
		{"report", "-f", missing + ".json"},
		{"sweep", "-f", missing + ".yaml", "--sizes", "1"},
		{"no-such-command"},
	} {
		var stderr bytes.Buffer
		if code := mainTo(args, &stderr); code != ExitBadInput {
			t.Errorf("%v: exit %d, want %d", args, code, ExitBadInput)
		}
		out := stderr.String()
		if strings.Count(out, "error: ") != 1 || !strings.HasPrefix(out, "error: ") || strings.Contains(out, "Error:") {
			t.Errorf("%v printed %q, want one line starting with \"error: \"", args, out)
		}
	}
}

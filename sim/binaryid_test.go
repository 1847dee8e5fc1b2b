package sim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A wrapper script is hashed as the script, through a symbolic link too.
func TestFileSHA256OfAWrapperScript(t *testing.T) {
	dir := t.TempDir()
	script := []byte("#!/bin/sh\nexec /bin/true \"$@\"\n")
	path := filepath.Join(dir, "wrapper.sh")
	if err := os.WriteFile(path, script, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(script)
	want := hex.EncodeToString(sum[:])
	for _, b := range []string{path, link} {
		if got := fileSHA256(b); got != want {
			t.Errorf("fileSHA256(%s) = %s, want %s", b, got, want)
		}
	}
	if got := fileSHA256(""); len(got) != 64 {
		t.Errorf("in process: %q, want the test binary's hash", got)
	}
	if got := fileSHA256(filepath.Join(dir, "missing")); !strings.HasPrefix(got, "unknown (") {
		t.Errorf("missing file: %q", got)
	}
}

// A wrapper whose version probe never ends, and whose child keeps the output open, costs the run
// the probe's timeout and no more.
func TestVersionProbeIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "slow.sh")
	if err := os.WriteFile(path, []byte("#!/bin/sh\nsleep 60 &\nsleep 60\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	v := binaryVersion(context.Background(), path, "--version")
	if took := time.Since(start); took > versionProbeTimeout+5*time.Second {
		t.Fatalf("the probe took %s", took)
	}
	if !strings.Contains(v, "timed out") {
		t.Fatalf("version = %q, want it to say the probe timed out", v)
	}
	fast := filepath.Join(t.TempDir(), "fast.sh")
	if err := os.WriteFile(fast, []byte("#!/bin/sh\necho v1.2.3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v := binaryVersion(context.Background(), fast, "--version"); v != "v1.2.3" {
		t.Fatalf("version = %q", v)
	}
}

func TestLoggedVersion(t *testing.T) {
	line := `{"level":"info","ts":"2026-12-01T10:29:26Z","msg":"version","GitVersion":"v3.5.0-8-g225f44568","GitCommit":"225f445","BuildDate":""}`
	if got := loggedVersion(line); got != "v3.5.0-8-g225f44568 225f445" {
		t.Errorf("loggedVersion = %q", got)
	}
	if got := loggedVersion("Usage of :"); got != "" {
		t.Errorf("loggedVersion of a usage line = %q, want empty", got)
	}
}

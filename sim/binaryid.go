package sim

import (
	"bytes"
	"context"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// versionProbeTimeout bounds a binary's version probe: a wrapper script may sleep, or start a
// controller that never exits, and the run must not wait for it.
const versionProbeTimeout = 3 * time.Second

// probeWaitDelay is how long the probe waits for its output after the process group was killed:
// a child that inherited the pipes keeps them open.
const probeWaitDelay = 500 * time.Millisecond

// binaryIDs remembers versions and hashes per file (path, size and modification time), so that a
// binary probed for the A/B section is not probed again for its strategy's config.
var binaryIDs sync.Map

// resolveBinary is the file a command's first element runs: a path as given, else the first match
// on PATH; symbolic links followed. A wrapper script resolves to the script.
func resolveBinary(binary string) (string, error) {
	path := binary
	if !strings.ContainsRune(binary, filepath.Separator) {
		var err error
		if path, err = exec.LookPath(binary); err != nil {
			return "", err
		}
	}
	return filepath.EvalSymlinks(path)
}

// fileKey identifies a file's content as far as its metadata tells (a rebuild changes it).
func fileKey(kind, path string, extra ...string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%s", kind, path, fi.Size(), fi.ModTime().UnixNano(), strings.Join(extra, "\x00")), nil
}

// fileSHA256 is the hex SHA-256 of the file binary resolves to; of the harness's own executable
// when binary is "" (an in-process controller is part of the harness).
func fileSHA256(binary string) string {
	path, err := os.Executable()
	if binary != "" {
		path, err = resolveBinary(binary)
	}
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	key, err := fileKey("sha256", path)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	if v, ok := binaryIDs.Load(key); ok {
		return v.(string)
	}
	f, err := os.Open(path)
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown (" + err.Error() + ")"
	}
	sum := hex.EncodeToString(h.Sum(nil))
	binaryIDs.Store(key, sum)
	return sum
}

// binaryVersion is what a controller binary says of its version when run with args, else its Go
// build info (module version, VCS revision). Empty for "". The probe never takes much longer
// than versionProbeTimeout, and its failure is not fatal: the version then says why.
func binaryVersion(ctx context.Context, binary string, args ...string) string {
	if binary == "" {
		return ""
	}
	key, path := "", binary
	if p, err := resolveBinary(binary); err == nil {
		path = p
		key, _ = fileKey("version", path, args...)
	}
	if key != "" {
		if v, ok := binaryIDs.Load(key); ok {
			return v.(string)
		}
	}
	v := probeVersion(ctx, binary, path, args...)
	if key != "" {
		binaryIDs.Store(key, v)
	}
	return v
}

// probeVersion runs binary with args; path is the file it resolves to, for its build info.
func probeVersion(ctx context.Context, binary, path string, args ...string) string {
	cctx, cancel := context.WithTimeout(ctx, versionProbeTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(cctx, binary, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// Its own process group, killed whole: a wrapper's children die with it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = probeWaitDelay
	err := cmd.Run()
	timedOut := cctx.Err() != nil
	if line := firstLine(out.String()); err == nil && line != "" {
		return line
	}
	if v := loggedVersion(firstLine(errOut.String())); v != "" {
		return v
	}
	info, berr := buildinfo.ReadFile(path)
	if berr != nil {
		if timedOut {
			return fmt.Sprintf("unknown (the version probe timed out after %s)", versionProbeTimeout)
		}
		return "unknown (" + berr.Error() + ")"
	}
	v := info.Main.Path + " " + info.Main.Version
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" || s.Key == "vcs.modified" {
			v += " " + s.Key + "=" + s.Value
		}
	}
	return strings.TrimSpace(v)
}

// loggedVersion is the version a controller logs as its first JSON line, as LBC does at every
// start (it has no --version flag: it logs, prints its usage and fails).
func loggedVersion(line string) string {
	var v struct{ GitVersion, GitCommit string }
	if json.Unmarshal([]byte(line), &v) != nil || v.GitVersion == "" {
		return ""
	}
	return strings.TrimSpace(v.GitVersion + " " + v.GitCommit)
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

package scaffold

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"time"
)

// Flag is one flag a help text lists.
type Flag struct {
	Name string
	// Value is the value's type word (string, int, duration); "" for a boolean flag.
	Value   string
	Usage   string
	Default string
}

var (
	// pflag (cobra, controller-runtime's and ACK's binaries): "  -h, --help   usage" and
	// "      --aws-region string   usage (default "us-west-2")".
	pflagLine = regexp.MustCompile(`^\s+(?:-[A-Za-z0-9],\s+)?--([A-Za-z0-9][\w.-]*)(?:[ =]([A-Za-z][\w.\[\]]*))?(?:\s{2,}|\t|$)(.*)$`)
	// Go's flag package: "  -kubeconfig string" with its usage on the next line after a tab.
	goFlagLine = regexp.MustCompile(`^\s+-([A-Za-z0-9][\w.-]*)(?:\s+([A-Za-z][\w.]*))?\s*$`)
	defaultOf  = regexp.MustCompile(`\(default "?([^")]*)"?\)`)
)

// ParseHelp lists the flags of a pflag or Go flag help text, in order, each once.
func ParseHelp(text string) []Flag {
	var out []Flag
	seen := map[string]bool{}
	add := func(f Flag) {
		if seen[f.Name] {
			return
		}
		seen[f.Name] = true
		if m := defaultOf.FindStringSubmatch(f.Usage); m != nil {
			f.Default = m[1]
		}
		out = append(out, f)
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := pflagLine.FindStringSubmatch(line); m != nil {
			add(Flag{Name: m[1], Value: m[2], Usage: strings.TrimSpace(m[3])})
			continue
		}
		if m := goFlagLine.FindStringSubmatch(line); m != nil && i+1 < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[i+1], " "), "\t") {
			add(Flag{Name: m[1], Value: m[2], Usage: strings.TrimSpace(lines[i+1])})
			i++
		}
	}
	return out
}

// maxHelpBytes bounds what is kept of a help text.
const maxHelpBytes = 1 << 20

// RunHelp runs binary with args and --help and returns what it printed. It runs in an empty
// temporary directory with only PATH and HOME (the directory) in its environment, a kubeconfig
// that does not exist and no AWS settings, so that it can reach neither a cluster nor AWS, and is
// killed with its process group after timeout.
func RunHelp(ctx context.Context, binary string, args []string, timeout time.Duration) (string, error) {
	dir, err := os.MkdirTemp("", "restartsim-init-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, append(append([]string{}, args...), "--help")...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "KUBECONFIG=" + dir + "/no-kubeconfig"}
	var out bytes.Buffer
	w := &limitedWriter{buf: &out, left: maxHelpBytes}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	if ctx.Err() != nil {
		return "", fmt.Errorf("%s --help did not finish within %s", binary, timeout)
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return "", fmt.Errorf("running %s --help: %w", binary, err)
	}
	// pflag and Go's flag exit 0 or 2 after printing the help; what counts is that flags were printed.
	text := out.String()
	if len(ParseHelp(text)) == 0 {
		return "", fmt.Errorf("%s --help printed no flags (exit %v): %s", binary, cmd.ProcessState.ExitCode(), firstLines(text, 3))
	}
	return text, nil
}

type limitedWriter struct {
	buf  *bytes.Buffer
	left int
}

func (w *limitedWriter) Write(p []byte) (int, error) {
	n := min(len(p), w.left)
	w.buf.Write(p[:n])
	w.left -= n
	return len(p), nil
}

func firstLines(text string, n int) string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() && len(out) < n {
		out = append(out, sc.Text())
	}
	if len(out) == 0 {
		return "(nothing)"
	}
	return strings.Join(out, " / ")
}

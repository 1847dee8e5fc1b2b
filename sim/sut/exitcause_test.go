package sut

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/runerr"
)

// A controller that exits at start because AWS refused it (ACK with a wrong secret: STS answers
// SignatureDoesNotMatch) is named with what AWS refused, from the call log, and the last error its
// log reported, not only "exited on its own, see its log". Driven by the AWS CLI against a started
// fakeaws.
func TestExternalExitNamesWhatAWSRefused(t *testing.T) {
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("aws CLI not on PATH")
	}
	srv, url := startFakeAWS(t, "AKIDRESTARTSIM", "right-secret")
	home := t.TempDir()
	// Twice, as a controller retrying its identity before it gives up.
	call := fmt.Sprintf("env -i HOME=%s PATH=%s AWS_ACCESS_KEY_ID=AKIDRESTARTSIM AWS_SECRET_ACCESS_KEY=wrong-secret AWS_DEFAULT_REGION=us-west-2 "+
		"AWS_CONFIG_FILE=%s AWS_SHARED_CREDENTIALS_FILE=%s AWS_EC2_METADATA_DISABLED=true AWS_MAX_ATTEMPTS=1 %s sts get-caller-identity --endpoint-url %s",
		home, os.Getenv("PATH"), filepath.Join(home, "none"), filepath.Join(home, "none"), cli, url)
	x := shExternal(t, "echo starting; "+call+" || "+call+" || { echo 'level=info msg=\"giving up\"'; exit 1; }", 1)
	x.aws = backend.Local{Server: srv}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	err = x.Start(ctx)
	if err == nil { // still starting the CLI: wait for its exit
		runCtx, stop := WatchExit(ctx, x)
		defer stop()
		select {
		case <-runCtx.Done():
		case <-time.After(time.Minute):
			t.Fatal("the controller did not exit within a minute")
		}
		err = context.Cause(runCtx)
	}
	var ce *runerr.ControllerExitError
	if !errors.As(err, &ce) {
		t.Fatalf("error %v: want a *ControllerExitError", err)
	}
	// The signature is checked before the request's action is read: the call log names no operation.
	if len(ce.Refused) != 1 || !strings.HasPrefix(ce.Refused[0], "sts ") || !strings.Contains(ce.Refused[0], " SignatureDoesNotMatch × 2 (\"The request signature") {
		t.Errorf("refused %q, want the two STS calls refused with SignatureDoesNotMatch and its message", ce.Refused)
	}
	if !strings.Contains(ce.LastError, "SignatureDoesNotMatch") {
		t.Errorf("last error line %q, want the CLI's SignatureDoesNotMatch line", ce.LastError)
	}
	for _, want := range []string{"exit status 1", "AWS refused its calls: sts ", "its log's last error:", ce.Log} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q lacks %q", err, want)
		}
	}
}

// The last error line is found in the usual log formats, the harness's own lines skipped.
func TestLastErrorLineOfALog(t *testing.T) {
	for _, tc := range []struct{ log, want string }{
		{`{"level":"info","msg":"start"}` + "\n" + `{"level":"error","msg":"sts: SignatureDoesNotMatch"}` + "\n" + `{"level":"info","msg":"bye"}`,
			`{"level":"error","msg":"sts: SignatureDoesNotMatch"}`},
		{"E1207 05:00:00.000000 1 main.go:10] cannot list zones\nI1207 05:00:01 bye", "E1207 05:00:00.000000 1 main.go:10] cannot list zones"},
		{"time=x level=fatal msg=\"no credentials\"\n\n[restartsim] controller exited: exit status 1", `time=x level=fatal msg="no credentials"`},
		{"all is well\n", ""},
	} {
		path := filepath.Join(t.TempDir(), "controller-0.log")
		if err := os.WriteFile(path, []byte(tc.log), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := lastErrorLine(path); got != tc.want {
			t.Errorf("log %q: %q, want %q", tc.log, got, tc.want)
		}
	}
}

package sut

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// awsChildReport names the file the test binary, run as an external controller, writes what it saw into.
const awsChildReport = "RESTARTSIM_TEST_AWS_CHILD_REPORT"

// awsChild is what the child saw: its environment, and its AWS SDK's default configuration's answer to
// GetCallerIdentity.
type awsChild struct {
	Env     []string `json:"env"`
	Account string   `json:"account"`
	Err     string   `json:"err"`
}

// runAWSChild is the external controller of TestExternalAWSEnvironment: it loads the AWS SDK's default
// configuration as any controller would, asks who it is, reports, and waits to be stopped.
func runAWSChild(report string) {
	var out awsChild
	out.Env = os.Environ()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	cfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err == nil {
		var id *sts.GetCallerIdentityOutput
		if id, err = sts.NewFromConfig(cfg).GetCallerIdentity(ctx, &sts.GetCallerIdentityInput{}); err == nil {
			out.Account = aws.ToString(id.Account)
		}
	}
	cancel()
	if err != nil {
		out.Err = err.Error()
	}
	b, err := json.Marshal(out)
	if err == nil && os.WriteFile(report+".tmp", b, 0o600) == nil {
		_ = os.Rename(report+".tmp", report)
	}
	select {}
}

// An external controller gets an AWS environment of its own: none of the harness's AWS_ variables (a CA
// bundle, profile, config file, role, web-identity token or endpoint), empty config and credentials files, and
// fakeaws's endpoint and key pair, with which an unmodified SDK reaches fakeaws; the scenario's env still adds
// variables.
func TestExternalAWSEnvironment(t *testing.T) {
	home := t.TempDir()
	profile := "[profile corp]\nregion = eu-central-1\nca_bundle = " + filepath.Join(home, "missing-ca.pem") + "\n"
	if err := os.WriteFile(filepath.Join(home, "config"), []byte(profile), 0o600); err != nil {
		t.Fatal(err)
	}
	inherited := map[string]string{
		"AWS_CA_BUNDLE": filepath.Join(home, "missing-ca.pem"), "AWS_PROFILE": "corp", "AWS_DEFAULT_PROFILE": "corp",
		"AWS_CONFIG_FILE": filepath.Join(home, "config"), "AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "credentials"),
		"AWS_WEB_IDENTITY_TOKEN_FILE": filepath.Join(home, "token"), "AWS_ROLE_ARN": "arn:aws:iam::999999999999:role/corp",
		"AWS_SESSION_TOKEN": "corp-session", "AWS_ENDPOINT_URL_STS": "https://sts.corp.invalid", "AWS_REGION": "eu-central-1",
	}
	for k, v := range inherited {
		t.Setenv(k, v)
	}
	t.Setenv("HOME", home)
	t.Setenv("RESTARTSIM_TEST_KEPT", "yes")

	srv, url := startFakeAWS(t, "AKIDCHILD", "child-secret")

	dir := t.TempDir()
	report := filepath.Join(dir, "child.json")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	x := &scenario.External{Command: []string{self, "-test.run=^$"},
		Env: map[string]string{awsChildReport: report, "AWS_MAX_ATTEMPTS": "2"}}
	sc := &scenario.Scenario{Controller: scenario.Controller{Replicas: 1}}
	ctrls, err := NewExternal(x, &env.Env{ControllerKubeconfig: filepath.Join(dir, "kubeconfig")}, backend.Local{Server: srv},
		backend.Creds{Region: "us-west-2", AccessKey: "AKIDCHILD", SecretKey: "child-secret"}, sc, "lease-ns", dir, logr.Discard())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := ctrls.Start(ctx); err != nil {
		t.Fatal(err)
	}
	got := awaitChildReport(t, report, ctrls.(*external).Exited())
	cancel()

	seen := map[string]string{}
	for _, kv := range got.Env {
		k, v, _ := strings.Cut(kv, "=")
		seen[k] = v
	}
	for k, v := range inherited {
		if seen[k] == v {
			t.Errorf("the child inherited %s=%s", k, v)
		}
	}
	for _, k := range []string{"AWS_CA_BUNDLE", "AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_STS"} {
		if v, ok := seen[k]; ok {
			t.Errorf("the child has %s=%s", k, v)
		}
	}
	want := map[string]string{"AWS_ENDPOINT_URL": url, "AWS_ACCESS_KEY_ID": "AKIDCHILD", "AWS_SECRET_ACCESS_KEY": "child-secret",
		"AWS_REGION": "us-west-2", "AWS_MAX_ATTEMPTS": "2", "RESTARTSIM_TEST_KEPT": "yes"}
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("the child has %s=%q, want %q", k, seen[k], v)
		}
	}
	for _, k := range []string{"AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"} {
		if fi, err := os.Stat(seen[k]); err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 || !strings.HasPrefix(seen[k], dir) {
			t.Errorf("the child's %s=%q is not an empty file of the run (%v)", k, seen[k], err)
		}
	}
	if got.Err != "" || got.Account != "555566667777" {
		t.Errorf("the child's SDK: account %q, error %s", got.Account, got.Err)
	}
}

// awaitChildReport waits for the child's report, failing at once if the child exits.
func awaitChildReport(t *testing.T, report string, exited <-chan struct{}) awsChild {
	t.Helper()
	deadline := time.After(60 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		b, err := os.ReadFile(report)
		if err == nil {
			var got awsChild
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("report %s: %v", b, err)
			}
			return got
		}
		if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		select {
		case <-exited:
			t.Fatal("the child exited before it reported")
		case <-deadline:
			t.Fatal("no report from the child after 60 s")
		case <-tick.C:
		}
	}
}

// testExternal is an external controller of x's command, as NewExternal builds one, without an environment.
func testExternal(t *testing.T, x *scenario.External, dir, secrets string, reps int) *external {
	t.Helper()
	command, err := parseCommand(x)
	if err != nil {
		t.Fatal(err)
	}
	return &external{x: x, command: command, dir: dir, secrets: secrets, reps: reps, log: logr.Discard()}
}

// The command and environment are parsed once, when the controller is built (a mistake is bad input
// naming the field), and each process's start only fills in its own values.
func TestCommandParsedOnceFilledPerReplica(t *testing.T) {
	_, err := parseCommand(&scenario.External{Command: []string{"ctl", "--port={{.Port"}})
	if !runerr.IsBadInput(err) || !strings.Contains(err.Error(), "controller.external.command[1]") {
		t.Fatalf("err %v: want bad input naming command[1]", err)
	}
	_, err = parseCommand(&scenario.External{Command: []string{"ctl"}, Env: map[string]string{"A": "{{end}}"}})
	if !runerr.IsBadInput(err) || !strings.Contains(err.Error(), "controller.external.env[A]") {
		t.Fatalf("err %v: want bad input naming env[A]", err)
	}
	c, err := parseCommand(&scenario.External{Command: []string{"ctl", "--id={{.Replica}}", "--metrics=:{{.MetricsPort}}"},
		Env: map[string]string{"Z": "{{.Region}}", "A": "r{{.Replica}}"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []scenario.TemplateData{{Replica: 0, MetricsPort: 20001, Region: "eu-west-1"}, {Replica: 1, MetricsPort: 20002, Region: "eu-west-1"}} {
		argv, env, err := c.fill(d)
		if err != nil {
			t.Fatal(err)
		}
		wantArgv := []string{"ctl", fmt.Sprintf("--id=%d", d.Replica), fmt.Sprintf("--metrics=:%d", d.MetricsPort)}
		wantEnv := []string{fmt.Sprintf("A=r%d", d.Replica), "Z=eu-west-1"}
		if !slices.Equal(argv, wantArgv) || !slices.Equal(env, wantEnv) {
			t.Errorf("replica %d: argv %q env %q, want %q %q", d.Replica, argv, env, wantArgv, wantEnv)
		}
	}
}

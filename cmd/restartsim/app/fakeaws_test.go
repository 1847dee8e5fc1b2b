package app

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestFakeAWSValidate(t *testing.T) {
	o := newFakeAWSOptions()
	o.accessKeyID, o.secretAccessKey = "", ""
	o.timeScale = 0
	if err := o.Validate(); err == nil {
		t.Fatal("invalid options accepted")
	}
	if code := Main([]string{"fakeaws", "--profile", "nope", "--access-key-id", "a", "--secret-access-key", "b"}); code != ExitBadInput {
		t.Fatalf("exit code %d", code)
	}
}

func TestFakeAWSServesAndStops(t *testing.T) {
	o := newFakeAWSOptions()
	o.listen, o.accessKeyID, o.secretAccessKey = "127.0.0.1:0", "id", "secret"
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- runFakeAWS(ctx, o, ready) }()
	url := <-ready
	req, _ := http.NewRequest("GET", url+"/_restartsim/calls", nil)
	req.Header.Set(fakeaws.AdminAccessKeyHeader, "id")
	req.Header.Set(fakeaws.AdminSecretKeyHeader, "secret")
	var resp *http.Response
	var err error
	for range 50 {
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("admin call: %v %v", err, resp)
	}
	resp.Body.Close()
	cancel()
	select {
	case err := <-errc:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("did not stop")
	}
}

// TestFakeAWSRefusesNonLoopbackListen: a --listen beyond loopback is bad input unless --allow-non-loopback
// says it is meant.
func TestFakeAWSRefusesNonLoopbackListen(t *testing.T) {
	for listen, ok := range map[string]bool{"0.0.0.0:4566": false, "[::]:4566": false, "10.1.2.3:4566": false,
		":4566": true, "127.0.0.1:4566": true, "[::1]:4566": true, "localhost:4566": true} {
		o := newFakeAWSOptions()
		o.listen, o.accessKeyID, o.secretAccessKey = listen, "id", "secret"
		if err := o.Validate(); (err == nil) != ok {
			t.Errorf("--listen %s: err %v, want accepted %v", listen, err, ok)
		}
		o.allowNonLoopback = true
		if err := o.Validate(); err != nil {
			t.Errorf("--listen %s --allow-non-loopback: %v", listen, err)
		}
	}
	if code := Main([]string{"fakeaws", "--listen", "0.0.0.0:0", "--access-key-id", "a", "--secret-access-key", "b"}); code != ExitBadInput {
		t.Fatalf("exit code %d, want %d", code, ExitBadInput)
	}
}

// TestFakeAWSRefusesBadTimeScale: a time scale that is not a finite number in (0, 10000] is bad input
// (exit 2) before anything listens; NaN, Inf or 1e308 used to move the clock to another century.
func TestFakeAWSRefusesBadTimeScale(t *testing.T) {
	for _, scale := range []string{"NaN", "Inf", "-Inf", "1e308", "10001", "0", "-1"} {
		if code := Main([]string{"fakeaws", "--time-scale", scale, "--listen", "127.0.0.1:0", "--aws-access-key-id", "a", "--aws-secret-access-key", "b"}); code != ExitBadInput {
			t.Errorf("--time-scale %s: exit %d, want %d", scale, code, ExitBadInput)
		}
	}
	for _, scale := range []float64{0.001, 1, 20, fakeaws.MaxTimeScale} {
		o := newFakeAWSOptions()
		o.accessKeyID, o.secretAccessKey, o.timeScale = "id", "secret", scale
		if err := o.Validate(); err != nil {
			t.Errorf("--time-scale %v: %v", scale, err)
		}
	}
}

// TestFakeAWSMemoryFlags: the body budget and S3 bounds take quantities, reach the server's options and
// are checked: a budget that cannot hold the largest object is bad input.
func TestFakeAWSMemoryFlags(t *testing.T) {
	cmd := newFakeAWSCommand()
	if err := cmd.ParseFlags([]string{"--max-inflight-body-bytes", "64Mi", "--max-s3-object-bytes", "8Mi", "--max-s3-stored-bytes", "1Gi"}); err != nil {
		t.Fatal(err)
	}
	for flag, want := range map[string]string{"max-inflight-body-bytes": "64Mi", "max-s3-object-bytes": "8Mi", "max-s3-stored-bytes": "1Gi"} {
		if got := cmd.Flags().Lookup(flag).Value.String(); got != want {
			t.Errorf("--%s = %s, want %s", flag, got, want)
		}
	}
	for _, bad := range []string{"0", "-1Mi", "lots"} {
		if err := newFakeAWSCommand().ParseFlags([]string{"--max-s3-object-bytes", bad}); err == nil {
			t.Errorf("--max-s3-object-bytes %s accepted", bad)
		}
	}
	if code := Main([]string{"fakeaws", "--listen", "127.0.0.1:0", "--aws-access-key-id", "a", "--aws-secret-access-key", "b",
		"--max-inflight-body-bytes", "1Mi", "--max-s3-object-bytes", "8Mi"}); code != ExitBadInput {
		t.Fatalf("a budget smaller than an object: exit %d, want %d", code, ExitBadInput)
	}
}

// TestFakeAWSEKSFlags: the --eks-* flags describe the cluster DescribeCluster answers (the CA file sent
// base64-encoded), and a cluster flag without --eks-cluster-name or a bad CIDR is bad
// input.
func TestFakeAWSEKSFlags(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("-----BEGIN CERTIFICATE-----\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := newFakeAWSOptions()
	fs := pflag.NewFlagSet("fakeaws", pflag.ContinueOnError)
	o.AddFlags(fs)
	if err := fs.Parse([]string{"--eks-cluster-name", "sim", "--eks-cluster-endpoint", "https://127.0.0.1:6443",
		"--eks-cluster-ca-file", ca, "--eks-kubernetes-version", "1.37"}); err != nil {
		t.Fatal(err)
	}
	c, err := o.eksCluster()
	if err != nil || c == nil || c.Name != "sim" || c.Version != "1.37" || c.CertificateAuthority != "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCg==" {
		t.Fatalf("cluster %+v, %v", c, err)
	}
	for _, args := range [][]string{{"--eks-cluster-endpoint", "https://x"}, {"--eks-cluster-name", "sim", "--eks-service-cidr", "nope"}} {
		if code := Main(append([]string{"fakeaws", "--aws-access-key-id", "a", "--aws-secret-access-key", "b"}, args...)); code != ExitBadInput {
			t.Errorf("%v: exit code %d", args, code)
		}
	}
}

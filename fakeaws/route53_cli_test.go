package fakeaws_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestRoute53AWSCLI drives a started server with the AWS CLI (botocore's own REST-XML client and signer).
func TestRoute53AWSCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the AWS CLI three times")
	}
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("aws CLI not on PATH")
	}
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	url := startServer(t, srv)
	run := awsCLI(t, cli, url, "route53", "us-east-1")
	created := run("create-hosted-zone", "--name", "cli.example", "--caller-reference", "cli-1")
	id := created["HostedZone"].(map[string]any)["Id"].(string)
	batch := `{"Changes":[{"Action":"CREATE","ResourceRecordSet":{"Name":"www.cli.example","Type":"A","TTL":60,"ResourceRecords":[{"Value":"192.0.2.1"}]}}]}`
	changed := run("change-resource-record-sets", "--hosted-zone-id", id, "--change-batch", batch)
	if st := changed["ChangeInfo"].(map[string]any)["Status"]; st != "PENDING" {
		t.Fatalf("change status %v, want PENDING", st)
	}
	listed := run("list-resource-record-sets", "--hosted-zone-id", id)
	var names []string
	for _, rs := range listed["ResourceRecordSets"].([]any) {
		m := rs.(map[string]any)
		names = append(names, m["Name"].(string)+" "+m["Type"].(string))
	}
	if got := strings.Join(names, ","); got != "cli.example. NS,cli.example. SOA,www.cli.example. A" {
		t.Fatalf("record sets listed by the CLI: %s", got)
	}
}

// startServer puts srv on a loopback listener for the test.
func startServer(t *testing.T, srv *fakeaws.Server) string {
	t.Helper()
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return url
}

// awsCLI returns a runner of `aws <service>` against url in region, with a clean environment and no retries,
// that decodes the JSON it prints.
func awsCLI(t *testing.T, cli, url, service, region string) func(args ...string) map[string]any {
	home := t.TempDir()
	return func(args ...string) map[string]any {
		t.Helper()
		cmd := exec.Command(cli, append([]string{service, "--endpoint-url", url, "--output", "json"}, args...)...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "AWS_ACCESS_KEY_ID=" + testKey, "AWS_SECRET_ACCESS_KEY=" + testSecret,
			"AWS_DEFAULT_REGION=" + region, "AWS_CONFIG_FILE=" + filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "none"),
			"AWS_EC2_METADATA_DISABLED=true", "AWS_MAX_ATTEMPTS=1"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("aws %s %s: %v\n%s", service, strings.Join(args, " "), err, out)
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("aws %s %s printed no JSON: %v\n%s", service, args[0], err, out)
		}
		return doc
	}
}

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

// awsCLIOrSkip finds the AWS CLI (botocore's own clients and signer), or skips the test.
func awsCLIOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts the AWS CLI")
	}
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("aws CLI not on PATH")
	}
	return cli
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

// awsCLIRaw returns a runner of `aws <service>` against url in region, with a clean environment and no
// retries: its combined output and error.
func awsCLIRaw(t *testing.T, cli, url, service, region string) func(args ...string) ([]byte, error) {
	home := t.TempDir()
	return func(args ...string) ([]byte, error) {
		cmd := exec.Command(cli, append([]string{service, "--endpoint-url", url, "--output", "json"}, args...)...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "AWS_ACCESS_KEY_ID=" + testKey, "AWS_SECRET_ACCESS_KEY=" + testSecret,
			"AWS_DEFAULT_REGION=" + region, "AWS_CONFIG_FILE=" + filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "none"),
			"AWS_EC2_METADATA_DISABLED=true", "AWS_MAX_ATTEMPTS=1"}
		return cmd.CombinedOutput()
	}
}

// awsCLI is awsCLIRaw that fails the test on an error and decodes the JSON the CLI prints.
func awsCLI(t *testing.T, cli, url, service, region string) func(args ...string) map[string]any {
	raw := awsCLIRaw(t, cli, url, service, region)
	return func(args ...string) map[string]any {
		t.Helper()
		out, err := raw(args...)
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

// awsRoute53CLI starts a server and returns a runner of `aws route53` against it.
func awsRoute53CLI(t *testing.T) func(args ...string) ([]byte, error) {
	cli := awsCLIOrSkip(t)
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	return awsCLIRaw(t, cli, startServer(t, srv), "route53", "us-east-1")
}

// TestRoute53AWSCLI drives a started server with the AWS CLI.
func TestRoute53AWSCLI(t *testing.T) {
	cli := awsCLIOrSkip(t)
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	run := awsCLI(t, cli, startServer(t, srv), "route53", "us-east-1")
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

// TestRoute53AWSCLIRefusals: the CLI reports Route53's documented refusals: no hosted zone for a top-level
// domain, no TXT character string over 255 characters.
func TestRoute53AWSCLIRefusals(t *testing.T) {
	cli := awsRoute53CLI(t)
	out, err := cli("create-hosted-zone", "--name", "com", "--caller-reference", "tld")
	if err == nil || !strings.Contains(string(out), "(InvalidDomainName)") {
		t.Fatalf("create-hosted-zone com: %v\n%s; want InvalidDomainName", err, out)
	}
	out, err = cli("create-hosted-zone", "--name", "txt.example", "--caller-reference", "txt")
	if err != nil {
		t.Fatalf("create-hosted-zone: %v\n%s", err, out)
	}
	var created struct{ HostedZone struct{ Id string } }
	if err := json.Unmarshal(out, &created); err != nil {
		t.Fatal(err)
	}
	batch := `{"Changes":[{"Action":"CREATE","ResourceRecordSet":{"Name":"t.txt.example","Type":"TXT","TTL":60,` +
		`"ResourceRecords":[{"Value":"\"` + strings.Repeat("x", 256) + `\""}]}}]}`
	out, err = cli("change-resource-record-sets", "--hosted-zone-id", created.HostedZone.Id, "--change-batch", batch)
	if err == nil || !strings.Contains(string(out), "(InvalidChangeBatch)") || !strings.Contains(string(out), "TXTRDATATooLong") {
		t.Fatalf("a TXT string of 256 characters: %v\n%s; want InvalidChangeBatch TXTRDATATooLong", err, out)
	}
}

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

// awsRoute53CLI starts a server and returns a runner of `aws route53` against it (botocore's own REST-XML
// client and signer): its combined output and error.
func awsRoute53CLI(t *testing.T) func(args ...string) ([]byte, error) {
	if testing.Short() {
		t.Skip("starts the AWS CLI")
	}
	cli, err := exec.LookPath("aws")
	if err != nil {
		t.Skip("aws CLI not on PATH")
	}
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	url, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	home := t.TempDir()
	return func(args ...string) ([]byte, error) {
		cmd := exec.Command(cli, append([]string{"route53", "--endpoint-url", url, "--output", "json"}, args...)...)
		cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "AWS_ACCESS_KEY_ID=" + testKey, "AWS_SECRET_ACCESS_KEY=" + testSecret,
			"AWS_DEFAULT_REGION=us-east-1", "AWS_CONFIG_FILE=" + filepath.Join(home, "none"), "AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(home, "none"),
			"AWS_EC2_METADATA_DISABLED=true", "AWS_MAX_ATTEMPTS=1"}
		return cmd.CombinedOutput()
	}
}

// TestRoute53AWSCLI drives a started server with the AWS CLI.
func TestRoute53AWSCLI(t *testing.T) {
	cli := awsRoute53CLI(t)
	run := func(args ...string) map[string]any {
		t.Helper()
		out, err := cli(args...)
		if err != nil {
			t.Fatalf("aws route53 %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("aws route53 %s printed no JSON: %v\n%s", args[0], err, out)
		}
		return doc
	}
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

package fakeaws_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestACMAWSCLI imports a certificate and lists it with the AWS CLI (botocore's JSON 1.1 client and signer),
// and sees ACM's error for a certificate that does not exist.
func TestACMAWSCLI(t *testing.T) {
	cli := awsCLIOrSkip(t)
	// The scenario clock starts within the test certificate's validity.
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited,
		Clock: clocktesting.NewFakeClock(t0)})
	if err != nil {
		t.Fatal(err)
	}
	url := startServer(t, srv)
	run := awsCLI(t, cli, url, "acm", "us-west-2")
	certPEM, keyPEM := selfSigned(t, "cli.example.com", false)
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	imported := run("import-certificate", "--certificate", "fileb://"+certFile, "--private-key", "fileb://"+keyFile)
	arn, _ := imported["CertificateArn"].(string)
	if !acmARN.MatchString(arn) {
		t.Fatalf("import-certificate answered %v", imported)
	}
	listed := run("list-certificates", "--certificate-statuses", "ISSUED")
	list, _ := listed["CertificateSummaryList"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["CertificateArn"] != arn || list[0].(map[string]any)["DomainName"] != "cli.example.com" {
		t.Fatalf("list-certificates: %v", listed)
	}
	out, err := awsCLIRaw(t, cli, url, "acm", "us-west-2")("describe-certificate", "--certificate-arn", neverCreated)
	if err == nil || !strings.Contains(string(out), "(ResourceNotFoundException)") {
		t.Fatalf("describe-certificate of a never-created ARN: %v\n%s", err, out)
	}
}

package fakeaws_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/acm"
	acmtypes "github.com/aws/aws-sdk-go-v2/service/acm/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// neverCreated is an ACM certificate ARN of the test account and region that no test creates.
const neverCreated = "arn:aws:acm:us-west-2:123456789012:certificate/0c1d2e3f-aaaa-bbbb-cccc-0123456789ab"

var acmARN = regexp.MustCompile(`^arn:aws:acm:us-west-2:123456789012:certificate/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// selfSigned returns a PEM certificate for domain and its PEM private key (RSA 2048, or EC P-256 when ec).
func selfSigned(t testing.TB, domain string, ec bool) (certPEM, keyPEM []byte) {
	t.Helper()
	var pub, priv any
	if ec {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		pub, priv = &k.PublicKey, k
	} else {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		pub, priv = &k.PublicKey, k
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(42), Subject: pkix.Name{CommonName: domain}, DNSNames: []string{domain},
		NotBefore: t0.Add(-time.Hour), NotAfter: t0.Add(90 * 24 * time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, pub, priv)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

func (e *env) acm() *acm.Client { return acm.NewFromConfig(e.cfg) }

func (e *env) httpsListener(lb *string, port int32, cert string) (*elb.CreateListenerOutput, error) {
	return e.elb.CreateListener(ctx, &elb.CreateListenerInput{LoadBalancerArn: lb, Protocol: elbtypes.ProtocolEnumHttps, Port: aws.Int32(port),
		Certificates: []elbtypes.Certificate{{CertificateArn: aws.String(cert)}}, DefaultActions: fixed("404")})
}

// An imported certificate is described and listed as ACM does, a listener may use it, and it cannot be deleted
// while the listener does; a never-created ARN of the right shape is CertificateNotFound.
func TestACMImportedCertificateAndListeners(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.acm()
	certPEM, keyPEM := selfSigned(t, "shop.example.com", false)
	_, otherKey := selfSigned(t, "shop.example.com", false)
	_, err := c.ImportCertificate(ctx, &acm.ImportCertificateInput{Certificate: certPEM, PrivateKey: otherKey})
	wantCode(t, err, "ValidationException")
	_, err = c.ImportCertificate(ctx, &acm.ImportCertificateInput{Certificate: []byte("not a certificate"), PrivateKey: keyPEM})
	wantCode(t, err, "ValidationException")
	imp := must[*acm.ImportCertificateOutput](t)(c.ImportCertificate(ctx, &acm.ImportCertificateInput{Certificate: certPEM, PrivateKey: keyPEM,
		Tags: []acmtypes.Tag{{Key: aws.String("team"), Value: aws.String("shop")}}}))
	arn := aws.ToString(imp.CertificateArn)
	if !acmARN.MatchString(arn) {
		t.Fatalf("imported certificate ARN %q", arn)
	}
	d := must[*acm.DescribeCertificateOutput](t)(c.DescribeCertificate(ctx, &acm.DescribeCertificateInput{CertificateArn: imp.CertificateArn})).Certificate
	if d.Type != acmtypes.CertificateTypeImported || d.Status != acmtypes.CertificateStatusIssued || aws.ToString(d.DomainName) != "shop.example.com" ||
		d.KeyAlgorithm != acmtypes.KeyAlgorithmRsa2048 || d.ImportedAt == nil || !d.NotAfter.Equal(t0.Add(90*24*time.Hour)) || len(d.InUseBy) != 0 {
		t.Fatalf("described %+v", d)
	}

	lb := e.createLB(t, "tls", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	_, err = e.httpsListener(lb, 443, neverCreated)
	wantCode(t, err, "CertificateNotFound")
	_, err = e.httpsListener(lb, 443, "arn:aws:iam::123456789012:server-certificate/shop") // IAM is not served
	wantCode(t, err, "CertificateNotFound")
	l := must[*elb.CreateListenerOutput](t)(e.httpsListener(lb, 443, arn)).Listeners[0].ListenerArn
	_, err = e.elb.AddListenerCertificates(ctx, &elb.AddListenerCertificatesInput{ListenerArn: l, Certificates: []elbtypes.Certificate{{CertificateArn: aws.String(neverCreated)}}})
	wantCode(t, err, "CertificateNotFound")
	_, err = e.elb.ModifyListener(ctx, &elb.ModifyListenerInput{ListenerArn: l, Certificates: []elbtypes.Certificate{{CertificateArn: aws.String(neverCreated)}}})
	wantCode(t, err, "CertificateNotFound")

	d = must[*acm.DescribeCertificateOutput](t)(c.DescribeCertificate(ctx, &acm.DescribeCertificateInput{CertificateArn: imp.CertificateArn})).Certificate
	if len(d.InUseBy) != 1 || d.InUseBy[0] != aws.ToString(lb) {
		t.Fatalf("InUseBy %v, want the load balancer", d.InUseBy)
	}
	_, err = c.DeleteCertificate(ctx, &acm.DeleteCertificateInput{CertificateArn: imp.CertificateArn})
	wantCode(t, err, "ResourceInUseException")
	must[*elb.DeleteListenerOutput](t)(e.elb.DeleteListener(ctx, &elb.DeleteListenerInput{ListenerArn: l}))
	must[*acm.DeleteCertificateOutput](t)(c.DeleteCertificate(ctx, &acm.DeleteCertificateInput{CertificateArn: imp.CertificateArn}))
	_, err = c.DescribeCertificate(ctx, &acm.DescribeCertificateInput{CertificateArn: imp.CertificateArn})
	wantCode(t, err, "ResourceNotFoundException")
	_, err = c.DeleteCertificate(ctx, &acm.DeleteCertificateInput{CertificateArn: imp.CertificateArn})
	wantCode(t, err, "ResourceNotFoundException")
	_, err = c.DescribeCertificate(ctx, &acm.DescribeCertificateInput{CertificateArn: aws.String("arn:aws:acm:us-west-2:123456789012:cert")})
	wantCode(t, err, "InvalidArnException")
	_, err = e.httpsListener(lb, 443, arn) // deleted: gone for listeners too
	wantCode(t, err, "CertificateNotFound")
}

// A requested certificate is PENDING_VALIDATION for the issue delay (scenario time), then ISSUED; a listener
// refuses it until then. The same idempotency token names the same certificate.
func TestACMRequestedCertificateIssuesAfterDelay(t *testing.T) {
	e := newEnv(t, fakeaws.Options{CertificateIssueDelay: 2 * time.Minute})
	c := e.acm()
	in := &acm.RequestCertificateInput{DomainName: aws.String("api.example.com"), ValidationMethod: acmtypes.ValidationMethodDns,
		SubjectAlternativeNames: []string{"www.example.com"}, IdempotencyToken: aws.String("fleet1")}
	arn := must[*acm.RequestCertificateOutput](t)(c.RequestCertificate(ctx, in)).CertificateArn
	if again := must[*acm.RequestCertificateOutput](t)(c.RequestCertificate(ctx, in)).CertificateArn; aws.ToString(again) != aws.ToString(arn) {
		t.Fatalf("same token: %s then %s", aws.ToString(arn), aws.ToString(again))
	}
	d := must[*acm.DescribeCertificateOutput](t)(c.DescribeCertificate(ctx, &acm.DescribeCertificateInput{CertificateArn: arn})).Certificate
	if d.Status != acmtypes.CertificateStatusPendingValidation || d.Type != acmtypes.CertificateTypeAmazonIssued || len(d.DomainValidationOptions) != 2 ||
		d.DomainValidationOptions[0].ResourceRecord == nil || d.DomainValidationOptions[0].ValidationMethod != acmtypes.ValidationMethodDns {
		t.Fatalf("requested certificate %+v", d)
	}
	lb := e.createLB(t, "tls", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	_, err := e.httpsListener(lb, 443, aws.ToString(arn))
	wantCode(t, err, "CertificateNotFound")

	list := func(status acmtypes.CertificateStatus) []string {
		out := must[*acm.ListCertificatesOutput](t)(c.ListCertificates(ctx, &acm.ListCertificatesInput{CertificateStatuses: []acmtypes.CertificateStatus{status}}))
		var arns []string
		for _, s := range out.CertificateSummaryList {
			arns = append(arns, aws.ToString(s.CertificateArn))
		}
		return arns
	}
	if p := list(acmtypes.CertificateStatusPendingValidation); len(p) != 1 || p[0] != aws.ToString(arn) {
		t.Fatalf("pending: %v", p)
	}
	e.clock.Step(2 * time.Minute)
	d = must[*acm.DescribeCertificateOutput](t)(c.DescribeCertificate(ctx, &acm.DescribeCertificateInput{CertificateArn: arn})).Certificate
	if d.Status != acmtypes.CertificateStatusIssued || d.IssuedAt == nil || d.DomainValidationOptions[0].ValidationStatus != acmtypes.DomainStatusSuccess {
		t.Fatalf("after the delay %+v", d)
	}
	if p := list(acmtypes.CertificateStatusPendingValidation); len(p) != 0 {
		t.Fatalf("still pending: %v", p)
	}
	must[*elb.CreateListenerOutput](t)(e.httpsListener(lb, 443, aws.ToString(arn)))

	_, err = c.RequestCertificate(ctx, &acm.RequestCertificateInput{DomainName: aws.String("not a domain")})
	wantCode(t, err, "InvalidDomainValidationOptionsException")
	_, err = c.RequestCertificate(ctx, &acm.RequestCertificateInput{DomainName: aws.String("a.example.com"), IdempotencyToken: aws.String("no-dashes")})
	wantCode(t, err, "ValidationException")
}

// ListCertificates pages by MaxItems and NextToken, and lists only RSA_2048 certificates unless asked for
// other key types.
func TestACMListCertificatesPagesAndKeyTypes(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.acm()
	certPEM, keyPEM := selfSigned(t, "ec.example.com", true)
	ec := must[*acm.ImportCertificateOutput](t)(c.ImportCertificate(ctx, &acm.ImportCertificateInput{Certificate: certPEM, PrivateKey: keyPEM})).CertificateArn
	seen := map[string]bool{}
	p := acm.NewListCertificatesPaginator(c, &acm.ListCertificatesInput{MaxItems: aws.Int32(2)})
	pages := 0
	for p.HasMorePages() {
		out := must[*acm.ListCertificatesOutput](t)(p.NextPage(ctx))
		pages++
		for _, s := range out.CertificateSummaryList {
			if seen[aws.ToString(s.CertificateArn)] || s.KeyAlgorithm != acmtypes.KeyAlgorithmRsa2048 {
				t.Fatalf("page %d lists %+v", pages, s)
			}
			seen[aws.ToString(s.CertificateArn)] = true
		}
	}
	if len(seen) != 5 || pages != 3 { // the five certificates newEnv seeds, two a page
		t.Fatalf("%d certificates in %d pages", len(seen), pages)
	}
	out := must[*acm.ListCertificatesOutput](t)(c.ListCertificates(ctx, &acm.ListCertificatesInput{Includes: &acmtypes.Filters{KeyTypes: []acmtypes.KeyAlgorithm{acmtypes.KeyAlgorithmEcPrime256v1}}}))
	if len(out.CertificateSummaryList) != 1 || aws.ToString(out.CertificateSummaryList[0].CertificateArn) != aws.ToString(ec) {
		t.Fatalf("EC certificates: %+v", out.CertificateSummaryList)
	}
	_, err := c.ListCertificates(ctx, &acm.ListCertificatesInput{NextToken: aws.String("bogus!")})
	wantCode(t, err, "InvalidArgsException")
}

func TestACMTags(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.acm()
	arn := aws.String(certARN)
	must[*acm.AddTagsToCertificateOutput](t)(c.AddTagsToCertificate(ctx, &acm.AddTagsToCertificateInput{CertificateArn: arn,
		Tags: []acmtypes.Tag{{Key: aws.String("env"), Value: aws.String("prod")}, {Key: aws.String("owner")}}}))
	must[*acm.AddTagsToCertificateOutput](t)(c.AddTagsToCertificate(ctx, &acm.AddTagsToCertificateInput{CertificateArn: arn,
		Tags: []acmtypes.Tag{{Key: aws.String("env"), Value: aws.String("dev")}}}))
	tags := must[*acm.ListTagsForCertificateOutput](t)(c.ListTagsForCertificate(ctx, &acm.ListTagsForCertificateInput{CertificateArn: arn})).Tags
	if len(tags) != 2 || aws.ToString(tags[0].Key) != "env" || aws.ToString(tags[0].Value) != "dev" || aws.ToString(tags[1].Key) != "owner" {
		t.Fatalf("tags %+v", tags)
	}
	_, err := c.AddTagsToCertificate(ctx, &acm.AddTagsToCertificateInput{CertificateArn: arn, Tags: []acmtypes.Tag{{Key: aws.String("aws:reserved")}}})
	wantCode(t, err, "InvalidTagException")
	_, err = c.ListTagsForCertificate(ctx, &acm.ListTagsForCertificateInput{CertificateArn: aws.String(neverCreated)})
	wantCode(t, err, "ResourceNotFoundException")
}

// ACM throttles each operation at its documented rate: ImportCertificate and ListCertificates one a second.
func TestACMThrottlesPerOperation(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileAWSDocumented})
	c := e.acm()
	must[*acm.ListCertificatesOutput](t)(c.ListCertificates(ctx, &acm.ListCertificatesInput{}))
	_, err := c.ListCertificates(ctx, &acm.ListCertificatesInput{})
	wantCode(t, err, "ThrottlingException")
	// Another operation has its own bucket.
	must[*acm.DescribeCertificateOutput](t)(c.DescribeCertificate(ctx, &acm.DescribeCertificateInput{CertificateArn: aws.String(certARN)}))
	e.clock.Step(time.Second)
	must[*acm.ListCertificatesOutput](t)(c.ListCertificates(ctx, &acm.ListCertificatesInput{}))
	calls := e.srv.Recorder().Calls()
	last := calls[len(calls)-1]
	if last.Service != fakeaws.ServiceACM || last.Operation != "ListCertificates" || last.Bucket != "acm/ListCertificates" {
		t.Fatalf("recorded %+v", last)
	}
}

// The admin API seeds an issued certificate for a domain, which a listener then accepts.
func TestAdminSeedsCertificate(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	code, body := adminDo(t, e, "POST", "/_restartsim/seed/certificate", `{"domain":"seeded.example.com"}`, true)
	arn := regexp.MustCompile(`"arn":"([^"]+)"`).FindStringSubmatch(body)
	if code != 200 || arn == nil || !acmARN.MatchString(arn[1]) {
		t.Fatalf("seed answered %d %s", code, body)
	}
	lb := e.createLB(t, "tls", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	must[*elb.CreateListenerOutput](t)(e.httpsListener(lb, 443, arn[1]))
	if code, body = adminDo(t, e, "POST", "/_restartsim/seed/certificate", `{}`, true); code == 200 {
		t.Fatalf("a certificate without a domain was seeded: %s", body)
	}
}

// A snapshot carries the certificates, pending ones with their issue time: the restored server's listeners
// accept what the original's did.
func TestACMCertificatesInSnapshot(t *testing.T) {
	a := newEnv(t, fakeaws.Options{})
	pending := must[*acm.RequestCertificateOutput](t)(a.acm().RequestCertificate(ctx, &acm.RequestCertificateInput{DomainName: aws.String("p.example.com")})).CertificateArn
	snap, err := a.srv.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	b := newEnv(t, fakeaws.Options{From: snap})
	lb := b.createLB(t, "tls", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn
	must[*elb.CreateListenerOutput](t)(b.httpsListener(lb, 443, certARN))
	_, err = b.httpsListener(lb, 8443, aws.ToString(pending))
	wantCode(t, err, "CertificateNotFound")
	if got := len(b.srv.Certificates()); got != 6 {
		t.Fatalf("%d certificates restored, want 6", got)
	}
}

// An unsigned ACM request is refused before it is served, and recorded as an ACM call.
func TestACMUnsignedRequestRefused(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/", strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Target", "CertificateManager.ListCertificates")
	req.Header.Set("Content-Type", "application/x-amz-json-1.1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest && resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), `"__type":"MissingAuthenticationToken"`) {
		t.Fatalf("unsigned request: %d %s", resp.StatusCode, body)
	}
	calls := e.srv.Recorder().Calls()
	if last := calls[len(calls)-1]; last.Service != fakeaws.ServiceACM || last.Operation != "ListCertificates" || last.ErrorCode != "MissingAuthenticationToken" {
		t.Fatalf("recorded %+v", last)
	}
}

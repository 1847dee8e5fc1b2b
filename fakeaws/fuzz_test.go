package fakeaws_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/fakeaws"
)

var codeRE = regexp.MustCompile(`<Code>[^<]+</Code>`)

// FuzzQueryRequest signs arbitrary form bodies for ELBv2 or EC2 and checks the router and parser never panic
// and always answer with well-formed XML, carrying an error code unless the status is 200.
func FuzzQueryRequest(f *testing.F) {
	for _, s := range []struct{ svc, body string }{
		{"elasticloadbalancing", "Action=DescribeTargetGroups&Version=2015-12-01&PageSize=2"},
		{"elasticloadbalancing", "Action=RegisterTargets&Version=2015-12-01&TargetGroupArn=arn%3Aaws%3Ax&Targets.member.1.Id=10.0.0.1&Targets.member.1.Port=80"},
		{"ec2", "Action=AuthorizeSecurityGroupIngress&Version=2016-11-15&GroupId=sg-1&IpPermissions.1.IpProtocol=tcp&IpPermissions.1.FromPort=1&IpPermissions.1.ToPort=2&IpPermissions.1.IpRanges.1.CidrIp=10.0.0.0%2F8"},
		{"ec2", "Action=DescribeInstances&Version=2016-11-15&Filter.1.Name=tag%3Ax&Filter.1.Value.1=%2A&MaxResults=5"},
		{"ec2", "Action=DescribeSubnets&Version=2016-11-15&Filter.1.Name=tag-key&Filter.1.Value.1=kubernetes.io%2Frole%2Felb"},
		{"elasticloadbalancing", "Action=CreateLoadBalancer&Version=2015-12-01&Name=a&Type=network&SubnetMappings.member.1.SubnetId=subnet-1"},
		{"elasticloadbalancing", "Action=CreateListener&Version=2015-12-01&LoadBalancerArn=arn%3Aaws%3Ax&Protocol=HTTP&Port=80&DefaultActions.member.1.Type=forward&DefaultActions.member.1.ForwardConfig.TargetGroups.member.1.TargetGroupArn=x&DefaultActions.member.1.ForwardConfig.TargetGroups.member.1.Weight=2"},
		{"elasticloadbalancing", "Action=CreateRule&Version=2015-12-01&ListenerArn=x&Priority=1&Conditions.member.1.Field=http-header&Conditions.member.1.HttpHeaderConfig.HttpHeaderName=h&Conditions.member.1.HttpHeaderConfig.Values.member.1=v&Actions.member.1.Type=authenticate-oidc&Actions.member.1.AuthenticateOidcConfig.AuthenticationRequestExtraParams.entry.1.key=k&Actions.member.2.Type=fixed-response&Actions.member.2.FixedResponseConfig.StatusCode=200"},
		{"elasticloadbalancing", "Action=SetRulePriorities&Version=2015-12-01&RulePriorities.member.1.RuleArn=x&RulePriorities.member.1.Priority=3"},
	} {
		f.Add(s.svc, s.body)
	}
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		f.Fatal(err)
	}
	signer := v4.NewSigner()
	creds := aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}
	f.Fuzz(func(t *testing.T, svc, body string) {
		if svc != "ec2" {
			svc = "elasticloadbalancing"
		}
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		sum := sha256.Sum256([]byte(body))
		if err := signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), svc, "us-west-2", time.Now()); err != nil {
			t.Skip(err)
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		checkXMLResponse(t, rec)
		if rec.Code == http.StatusOK && !bytes.Contains(rec.Body.Bytes(), []byte("Response")) {
			t.Fatalf("200 without a response envelope: %q", rec.Body.Bytes())
		}
	})
}

// checkXMLResponse fails unless rec is a well-formed XML document, not a 5xx, with an error code unless 2xx.
func checkXMLResponse(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	out := rec.Body.Bytes()
	if rec.Code >= 500 {
		t.Fatalf("status %d: %q", rec.Code, out)
	}
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("status %d: malformed XML %q: %v", rec.Code, out, err)
		}
	}
	if rec.Code >= 300 && !codeRE.Match(out) {
		t.Fatalf("status %d without an error code: %q", rec.Code, out)
	}
}

// FuzzAuthHeaders signs a request at a fixed wall-clock time, then lets the fuzzer replace the Authorization
// header, set one more header after signing (X-Amz-Date, Host, Content-Length, ...) and add a query string
// (presigned parameters), checking every answer is a well-formed, non-5xx XML document.
func FuzzAuthHeaders(f *testing.F) {
	f.Add("elasticloadbalancing", "Action=DescribeTargetGroups&Version=2015-12-01", "", "", "", "")
	f.Add("ec2", "Action=DescribeVpcs&Version=2016-11-15", "", "X-Amz-Date", "20260102T031000Z", "")
	f.Add("elasticloadbalancing", "Action=DescribeTargetGroups&Version=2015-12-01", "AWS4-HMAC-SHA256 Credential=AKIDTEST/20260102/us-west-2/elasticloadbalancing/aws4_request, SignedHeaders=host;x-amz-date, Signature=00", "", "", "")
	f.Add("s3", "", "", "", "", "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIDTEST%2F20260102%2Fus-west-2%2Fs3%2Faws4_request&X-Amz-Date=20260102T030405Z&X-Amz-Expires=60&X-Amz-SignedHeaders=host&X-Amz-Signature=00")
	wall := clocktesting.NewFakeClock(t0)
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Profile: fakeaws.ProfileUnlimited, WallClock: wall})
	if err != nil {
		f.Fatal(err)
	}
	signer := v4.NewSigner()
	creds := aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}
	f.Fuzz(func(t *testing.T, svc, body, authz, hdrName, hdrValue, rawQuery string) {
		if svc != "ec2" && svc != "s3" {
			svc = "elasticloadbalancing"
		}
		req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
		if err != nil {
			t.Skip(err)
		}
		req.URL.RawQuery = rawQuery
		if svc != "s3" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		sum := sha256.Sum256([]byte(body))
		if err := signer.SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), svc, "us-west-2", t0); err != nil {
			t.Skip(err)
		}
		if authz != "" {
			req.Header.Set("Authorization", authz)
		}
		if hdrName != "" {
			req.Header[hdrName] = []string{hdrValue}
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if svc == "s3" && rec.Code < 300 {
			return // gofakes3 answers; only its errors are checked
		}
		checkXMLResponse(t, rec)
	})
}

package fakeaws_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/fakeaws"
)

const (
	elbBody = "Action=DescribeTargetGroups&Version=2015-12-01"
	ec2Body = "Action=DescribeVpcs&Version=2016-11-15"
)

// signedReq builds a POST form request to e signed for service at time at.
func signedReq(t testing.TB, e *env, service, body string, at time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, e.http.URL+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	sum := sha256.Sum256([]byte(body))
	creds := aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}
	if err := v4.NewSigner().SignHTTP(ctx, creds, req, hex.EncodeToString(sum[:]), service, "us-west-2", at); err != nil {
		t.Fatal(err)
	}
	return req
}

// send sends req (with body, which replaces the request's own) and returns the status and body.
func send(t testing.TB, e *env, req *http.Request, body string) (int, string) {
	t.Helper()
	req = req.Clone(ctx)
	if body != "" || req.Method == http.MethodPost {
		req.Body, req.ContentLength = io.NopCloser(strings.NewReader(body)), int64(len(body))
	}
	resp, err := e.http.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, readAll(t, resp)
}

func wantError(t testing.TB, status int, body string, wantStatus int, code, msg string) {
	t.Helper()
	if status != wantStatus || !strings.Contains(body, "<Code>"+code+"</Code>") || !strings.Contains(html.UnescapeString(body), msg) {
		t.Fatalf("got %d %s, want %d %s %q", status, body, wantStatus, code, msg)
	}
}

// TestOversizedRequests: bodies over MaxBodyBytes get 413 RequestEntityTooLarge in each API's error format.
func TestOversizedRequests(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxBodyBytes: 4096})
	names := make([]string, 300)
	for i := range names {
		names[i] = fmt.Sprintf("tg-%04d-%s", i, strings.Repeat("x", 20))
	}
	_, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Names: names})
	wantCode(t, err, "RequestEntityTooLarge")
	if st := httpStatus(err); st != 413 {
		t.Fatalf("ELB status %d", st)
	}
	_, err = e.ec2.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: names})
	wantCode(t, err, "RequestEntityTooLarge")
	if st := httpStatus(err); st != 413 {
		t.Fatalf("EC2 status %d", st)
	}
	code, body := adminDo(t, e, http.MethodPost, "/_restartsim/seed/vpc", `{"id":"`+strings.Repeat("v", 5000)+`"}`, true)
	var ae struct{ Code string }
	if code != 413 || json.Unmarshal([]byte(body), &ae) != nil || ae.Code != "RequestEntityTooLarge" {
		t.Fatalf("admin: %d %s", code, body)
	}
	// The default limit (1 MiB), raw and signed.
	d := newEnv(t, fakeaws.Options{})
	big := elbBody + "&Names.member.1=" + strings.Repeat("n", 2<<20)
	st, out := send(t, d, signedReq(t, d, "elasticloadbalancing", big, time.Now()), big)
	wantError(t, st, out, 413, "RequestEntityTooLarge", "exceeds 1048576 bytes")
}

// TestSignatureTime: X-Amz-Date is checked against the wall clock (not scenario time) with AWS's 5 minutes of
// skew; ELB answers SignatureDoesNotMatch "Signature expired", EC2 RequestExpired.
func TestSignatureTime(t *testing.T) {
	wall := clocktesting.NewFakeClock(time.Now().Add(-6 * time.Minute))
	e := newEnv(t, fakeaws.Options{WallClock: wall, TimeScale: 3600})
	_, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{})
	wantCode(t, err, "SignatureDoesNotMatch")
	if !strings.Contains(err.Error(), "Signature not yet current: ") || httpStatus(err) != 403 {
		t.Fatalf("future signature: %v", err)
	}
	wall.Step(6 * time.Minute)
	e.clock.Step(10 * time.Hour) // scenario time runs far ahead (TimeScale 3600): still fine
	if _, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}); err != nil {
		t.Fatal(err)
	}
	wall.Step(6 * time.Minute)
	_, err = e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{})
	wantCode(t, err, "SignatureDoesNotMatch")
	if msg := err.Error(); !strings.Contains(msg, "Signature expired: ") || !strings.Contains(msg, "is now earlier than") ||
		!strings.Contains(msg, " - 5 min.)") || httpStatus(err) != 403 {
		t.Fatalf("expired ELB: %v", err)
	}
	_, err = e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	wantCode(t, err, "RequestExpired")
	if !strings.Contains(err.Error(), "Request has expired.") || httpStatus(err) != 400 {
		t.Fatalf("expired EC2: %v", err)
	}
	if c := e.srv.Recorder().Calls(); c[len(c)-1].ErrorCode != "RequestExpired" || c[len(c)-1].HTTPStatus != 400 {
		t.Fatalf("recorded %+v", c[len(c)-1])
	}

	off := newEnv(t, fakeaws.Options{WallClock: clocktesting.NewFakeClock(t0), MaxClockSkew: -1})
	if _, err := off.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{}); err != nil {
		t.Fatalf("skew check disabled: %v", err)
	}
}

// TestReplay: a captured request may be replayed unchanged inside the skew window (as on AWS), not with an
// altered body, and not once the window has passed.
func TestReplay(t *testing.T) {
	wall := clocktesting.NewFakeClock(time.Now())
	e := newEnv(t, fakeaws.Options{WallClock: wall})
	for _, tc := range []struct {
		service, body, altered, badCode string
		badStatus                       int
		expiredCode                     string
		expiredStatus                   int
	}{
		{"elasticloadbalancing", elbBody, elbBody + "&PageSize=1", "SignatureDoesNotMatch", 403, "SignatureDoesNotMatch", 403},
		{"ec2", ec2Body, strings.Replace(ec2Body, "Vpcs", "Subnets", 1), "AuthFailure", 401, "RequestExpired", 400},
	} {
		req := signedReq(t, e, tc.service, tc.body, wall.Now())
		for range 2 {
			if st, out := send(t, e, req, tc.body); st != 200 {
				t.Fatalf("%s replay: %d %s", tc.service, st, out)
			}
		}
		st, out := send(t, e, req, tc.altered)
		wantError(t, st, out, tc.badStatus, tc.badCode, "")
		wall.Step(5*time.Minute + time.Second)
		st, out = send(t, e, req, tc.body)
		wantError(t, st, out, tc.expiredStatus, tc.expiredCode, "xpired")
	}
}

// TestPresignedExpiry: query-string signatures work until X-Amz-Date + X-Amz-Expires.
func TestPresignedExpiry(t *testing.T) {
	wall := clocktesting.NewFakeClock(time.Now())
	e := newEnv(t, fakeaws.Options{WallClock: wall})
	presign := func(service, query string) *http.Request {
		req, _ := http.NewRequest(http.MethodGet, e.http.URL+"/?"+query+"&X-Amz-Expires=60", nil)
		sum := sha256.Sum256(nil)
		u, _, err := v4.NewSigner().PresignHTTP(ctx, aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret},
			req, hex.EncodeToString(sum[:]), service, "us-west-2", wall.Now())
		if err != nil {
			t.Fatal(err)
		}
		out, _ := http.NewRequest(http.MethodGet, u, nil)
		return out
	}
	elbReq, ec2Req := presign("elasticloadbalancing", elbBody), presign("ec2", ec2Body)
	for _, r := range []*http.Request{elbReq, ec2Req} {
		if st, out := send(t, e, r, ""); st != 200 {
			t.Fatalf("fresh presigned: %d %s", st, out)
		}
	}
	tampered := *elbReq
	tampered.URL = &url.URL{}
	*tampered.URL = *elbReq.URL
	tampered.URL.RawQuery = strings.Replace(elbReq.URL.RawQuery, "X-Amz-Expires=60", "X-Amz-Expires=600", 1)
	st, out := send(t, e, &tampered, "")
	wantError(t, st, out, 403, "SignatureDoesNotMatch", "does not match")

	wall.Step(61 * time.Second)
	st, out = send(t, e, elbReq, "")
	wantError(t, st, out, 403, "SignatureDoesNotMatch", "Signature expired: ")
	st, out = send(t, e, ec2Req, "")
	wantError(t, st, out, 400, "RequestExpired", "Request has expired.")
}

// TestBadSignatures: every malformed or mismatched signature gets the service's auth error, never a 500.
func TestBadSignatures(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	now := time.Now()
	setAuth := func(f func(string) string) func(*http.Request) {
		return func(r *http.Request) { r.Header.Set("Authorization", f(r.Header.Get("Authorization"))) }
	}
	for _, tc := range []struct {
		name    string
		service string // signing name
		body    string
		mutate  func(*http.Request)
		status  int
		code    string
		msg     string
	}{
		{"bad terminator", "elasticloadbalancing", elbBody, setAuth(func(a string) string { return strings.Replace(a, "aws4_request", "aws5_request", 1) }), 403, "IncompleteSignature", "aws4_request"},
		{"scope date", "ec2", ec2Body, setAuth(func(a string) string { return strings.Replace(a, now.UTC().Format("/20060102/"), "/20000101/", 1) }), 403, "IncompleteSignature", "Date in Credential scope"},
		{"wrong service elb", "monitoring", elbBody, nil, 403, "SignatureDoesNotMatch", "Credential should be scoped to correct service: 'elasticloadbalancing'."},
		{"wrong service ec2", "sqs", ec2Body, nil, 401, "AuthFailure", ""},
		{"no SignedHeaders", "elasticloadbalancing", elbBody, setAuth(func(a string) string {
			i, j := strings.Index(a, "SignedHeaders="), strings.Index(a, ", Signature=")
			return a[:i] + a[j+2:]
		}), 403, "IncompleteSignature", "SignedHeaders"},
		{"host not signed", "elasticloadbalancing", elbBody, setAuth(func(a string) string {
			return strings.Replace(a, "SignedHeaders=content-length;content-type;host;", "SignedHeaders=content-length;content-type;", 1)
		}), 403, "IncompleteSignature", "'Host' or ':authority' must be a 'SignedHeader'"},
		{"host changed", "ec2", ec2Body, func(r *http.Request) { r.Host = "ec2.us-west-2.amazonaws.com" }, 401, "AuthFailure", ""},
		{"garbage", "elasticloadbalancing", elbBody, setAuth(func(string) string { return "AWS4-HMAC-SHA256 \xff\xfe,,==,Credential=/,Signature" }), 403, "IncompleteSignature", ""},
		{"huge garbage", "ec2", ec2Body, setAuth(func(string) string { return strings.Repeat("AWS4-HMAC-SHA256 ", 2000) }), 403, "IncompleteSignature", ""},
		{"bad signature hex", "elasticloadbalancing", elbBody, setAuth(func(a string) string { return a[:strings.LastIndex(a, "=")+1] + "zz" }), 403, "SignatureDoesNotMatch", ""},
		{"no X-Amz-Date", "elasticloadbalancing", elbBody, func(r *http.Request) { r.Header.Del("X-Amz-Date") }, 403, "IncompleteSignature", "X-Amz-Date"},
		{"bad X-Amz-Date", "ec2", ec2Body, func(r *http.Request) { r.Header.Set("X-Amz-Date", now.UTC().Format("20060102")+"Tnoon") }, 403, "IncompleteSignature", "ISO-8601"},
		{"unknown key", "elasticloadbalancing", elbBody, setAuth(func(a string) string { return strings.Replace(a, testKey, "AKIDOTHER", 1) }), 403, "InvalidClientTokenId", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := signedReq(t, e, tc.service, tc.body, now)
			if tc.mutate != nil {
				tc.mutate(req)
			}
			st, out := send(t, e, req, tc.body)
			wantError(t, st, out, tc.status, tc.code, tc.msg)
		})
	}
	// Presigned with parameters missing.
	st, out := send(t, e, mustReq(t, http.MethodGet, e.http.URL+"/?"+elbBody+"&X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=00"), "")
	wantError(t, st, out, 403, "IncompleteSignature", "query-string parameters must include")
}

func mustReq(t testing.TB, method, u string) *http.Request {
	t.Helper()
	r, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestAdminAuth: the admin API takes the AWS credentials (headers or SigV4) and nothing else.
func TestAdminAuth(t *testing.T) {
	wall := clocktesting.NewFakeClock(time.Now())
	e := newEnv(t, fakeaws.Options{WallClock: wall})
	get := func(mutate func(*http.Request)) int {
		req := mustReq(t, http.MethodGet, e.http.URL+"/_restartsim/state")
		mutate(req)
		st, _ := send(t, e, req, "")
		return st
	}
	sign := func(secret string, at time.Time) func(*http.Request) {
		return func(r *http.Request) {
			sum := sha256.Sum256(nil)
			_ = v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: testKey, SecretAccessKey: secret}, r, hex.EncodeToString(sum[:]), "restartsim", "us-west-2", at)
		}
	}
	headers := func(key, secret string) func(*http.Request) {
		return func(r *http.Request) {
			r.Header.Set(fakeaws.AdminAccessKeyHeader, key)
			r.Header.Set(fakeaws.AdminSecretKeyHeader, secret)
		}
	}
	for _, tc := range []struct {
		name   string
		mutate func(*http.Request)
		want   int
	}{
		{"none", func(*http.Request) {}, 403},
		{"key only", func(r *http.Request) { r.Header.Set(fakeaws.AdminAccessKeyHeader, testKey) }, 403},
		{"wrong secret", headers(testKey, "nope"), 403},
		{"wrong key", headers("AKIDOTHER", testSecret), 403},
		{"garbage sigv4", func(r *http.Request) { r.Header.Set("Authorization", "AWS4-HMAC-SHA256 x") }, 403},
		{"sigv4 wrong secret", sign("nope", wall.Now()), 403},
		{"sigv4 expired", sign(testSecret, wall.Now().Add(-time.Hour)), 403},
		{"headers", headers(testKey, testSecret), 200},
		{"sigv4", sign(testSecret, wall.Now()), 200},
	} {
		if got := get(tc.mutate); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestStartBindsLoopback: Start with no host listens on 127.0.0.1 only.
func TestStartBindsLoopback(t *testing.T) {
	for _, addr := range []string{"", ":0"} {
		srv, err := fakeaws.New(fakeaws.Options{})
		if err != nil {
			t.Fatal(err)
		}
		u, err := srv.Start(addr)
		if err != nil {
			t.Fatal(err)
		}
		pu, _ := url.Parse(u)
		if ip := net.ParseIP(pu.Hostname()); ip == nil || !ip.IsLoopback() {
			t.Errorf("Start(%q) listens on %s", addr, u)
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

package fakeaws_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// cpuTime is the process's user + system CPU so far.
func cpuTime(t testing.TB) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// serveCPU serves req in this goroutine three times (a fresh copy each) and returns the median CPU cost and the
// last response.
func serveCPU(t testing.TB, srv *fakeaws.Server, newReq func() *http.Request) (time.Duration, *httptest.ResponseRecorder) {
	t.Helper()
	var costs []time.Duration
	var rec *httptest.ResponseRecorder
	for range 3 {
		req := newReq()
		rec = httptest.NewRecorder()
		before := cpuTime(t)
		srv.ServeHTTP(rec, req)
		costs = append(costs, cpuTime(t)-before)
	}
	sort.Slice(costs, func(i, j int) bool { return costs[i] < costs[j] })
	return costs[1], rec
}

// dottedKeyBody is a 1 MiB form whose one key has half a million dots: indexing every dotted prefix of it
// costs time quadratic in its length.
var dottedKeyBody = "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("a.", 500000) + "=1"

// wantCheapRefusals serves each body (signed for ELBv2 when signed is set) and wants the error code, for less
// than 50 ms of CPU per request.
func wantCheapRefusals(t *testing.T, e *env, bodies map[string]string, signed bool, status int, code string) {
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			var header http.Header
			if signed {
				header = signedReq(t, e, "elasticloadbalancing", body, time.Now()).Header
			}
			cost, rec := serveCPU(t, e.srv, func() *http.Request {
				req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				if header != nil {
					req.Header, req.Host = header.Clone(), strings.TrimPrefix(e.http.URL, "http://")
				}
				return req
			})
			t.Logf("CPU %v", cost)
			wantError(t, rec.Code, rec.Body.String(), status, code, "")
			if cost > 50*time.Millisecond {
				t.Fatalf("refusing a %d-byte request cost %v of CPU, want < 50ms", len(body), cost)
			}
		})
	}
}

// TestHostileUnsignedRequestIsCheap: an unsigned 1 MiB request is refused with 403 for a few milliseconds of
// CPU, whatever its form holds.
func TestHostileUnsignedRequestIsCheap(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxBodyBytes: 2 << 20})
	wantCheapRefusals(t, e, map[string]string{
		"dotted key":   dottedKeyBody,
		"many params":  "Action=DescribeTargetGroups&Version=2015-12-01" + strings.Repeat("&a=1", 260000),
		"deep list":    "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("x.1.", 260000) + "=1",
		"escaped keys": "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("%41", 340000) + "=1",
	}, false, http.StatusForbidden, "MissingAuthenticationToken")
}

// TestHostileSignedFormsAreBounded: a correctly signed request over the form limits is refused with a
// validation error in bounded time.
func TestHostileSignedFormsAreBounded(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxBodyBytes: 2 << 20})
	wantCheapRefusals(t, e, map[string]string{
		"dotted key":  dottedKeyBody,
		"long key":    "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("a", 600) + "=1",
		"deep key":    "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("a.", 12) + "a=1",
		"many params": "Action=DescribeTargetGroups&Version=2015-12-01" + strings.Repeat("&a=1", 260000),
	}, true, http.StatusBadRequest, "ValidationError")
}

// TestListIndexGap: a list not numbered 1..n is a validation error, as in AWS, instead of a list read up to
// the gap (which turned a filter into "every target group").
func TestListIndexGap(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	arn := e.createTG(t, "tg", "ip", 80)
	for _, lists := range []string{
		"TargetGroupArns.member.999999999=" + url.QueryEscape(arn),
		"TargetGroupArns.member.1=" + url.QueryEscape(arn) + "&TargetGroupArns.member.3=x",
		"TargetGroupArns.member.0=" + url.QueryEscape(arn),
		"TargetGroupArns.member.01=" + url.QueryEscape(arn),
		"TargetGroupArns.member.99999999999999999999999=" + url.QueryEscape(arn),
	} {
		body := elbBody + "&" + lists
		status, out := send(t, e, signedReq(t, e, "elasticloadbalancing", body, time.Now()), body)
		wantError(t, status, out, http.StatusBadRequest, "ValidationError", "not numbered contiguously")
	}
	body := ec2Body + "&VpcId.2=vpc-1"
	status, out := send(t, e, signedReq(t, e, "ec2", body, time.Now()), body)
	wantError(t, status, out, http.StatusBadRequest, "InvalidParameterValue", "'VpcId.1 to VpcId.2'")
	body = elbBody + "&TargetGroupArns.member.1=" + url.QueryEscape(arn)
	if status, out := send(t, e, signedReq(t, e, "elasticloadbalancing", body, time.Now()), body); status != http.StatusOK {
		t.Fatalf("a contiguous list: %d %s", status, out)
	}
}

// TestInvalidUTF8IsRejected: a parameter that is not valid UTF-8 (here a security group's description) is
// refused, as AWS refuses it, instead of being stored.
func TestInvalidUTF8IsRejected(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	body := "Action=CreateSecurityGroup&Version=2016-11-15&GroupName=g&GroupDescription=bad%FF%FEtext&VpcId=" + e.srv.DefaultVPCID()
	status, out := send(t, e, signedReq(t, e, "ec2", body, time.Now()), body)
	wantError(t, status, out, http.StatusBadRequest, "InvalidParameterValue", "'GroupDescription' is not valid UTF-8")
	body = "Action=DescribeTargetGroups&Version=2015-12-01&Names.member.1=%C3%28"
	status, out = send(t, e, signedReq(t, e, "elasticloadbalancing", body, time.Now()), body)
	wantError(t, status, out, http.StatusBadRequest, "ValidationError", "not valid UTF-8")
}

package fakeaws_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"slices"
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

// work is what serving one request cost the process.
type work struct {
	mallocs, bytes uint64 // heap objects and bytes allocated
	cpu            time.Duration
}

// serveWork serves req in this goroutine three times (a fresh copy each) and returns the median of each
// cost and the last response.
func serveWork(t testing.TB, srv *fakeaws.Server, newReq func() *http.Request) (work, *httptest.ResponseRecorder) {
	t.Helper()
	var runs []work
	var rec *httptest.ResponseRecorder
	for range 3 {
		req := newReq()
		rec = httptest.NewRecorder()
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		cpu := cpuTime(t)
		srv.ServeHTTP(rec, req)
		cpu = cpuTime(t) - cpu
		runtime.ReadMemStats(&after)
		runs = append(runs, work{mallocs: after.Mallocs - before.Mallocs, bytes: after.TotalAlloc - before.TotalAlloc, cpu: cpu})
	}
	median := func(f func(w work) uint64) uint64 {
		vs := []uint64{f(runs[0]), f(runs[1]), f(runs[2])}
		slices.Sort(vs)
		return vs[1]
	}
	return work{
		mallocs: median(func(w work) uint64 { return w.mallocs }),
		bytes:   median(func(w work) uint64 { return w.bytes }),
		cpu:     time.Duration(median(func(w work) uint64 { return uint64(w.cpu) })),
	}, rec
}

// dottedKeyBody is a 1 MiB form whose one key has half a million dots: indexing every dotted prefix of it
// costs time quadratic in its length.
var dottedKeyBody = "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("a.", 500000) + "=1"

// Limits of the work one refused request may cost. Reading, hashing and bounding a body allocates a few
// copies of it (at most 3.6 measured), while a form decoded in full holds every parameter: 23 MB, 22
// copies, for the 260,000 of "many params". The CPU ceiling is 200 times the few milliseconds a refusal
// costs, so neither the race detector nor a loaded machine reaches it, while the quadratic prefix index
// (17 s for dottedKeyBody) does. BenchmarkHostileRefusals measures the cost itself.
const (
	maxRefusalBodyCopies = 6
	maxRefusalCPU        = time.Second
)

// hostileRequest is a POST of body, signed for ELBv2 when signed is set.
func hostileRequest(t testing.TB, e *env, body string, signed bool) func() *http.Request {
	var header http.Header
	if signed {
		header = signedReq(t, e, "elasticloadbalancing", body, time.Now()).Header
	}
	return func() *http.Request {
		req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if header != nil {
			req.Header, req.Host = header.Clone(), strings.TrimPrefix(e.http.URL, "http://")
		}
		return req
	}
}

// wantCheapRefusals serves each body (signed for ELBv2 when signed is set) and wants the error code, for
// bounded work per request: a few copies of the body allocated, far less CPU than decoding it would take.
func wantCheapRefusals(t *testing.T, e *env, bodies map[string]string, signed bool, status int, code string) {
	for name, body := range bodies {
		t.Run(name, func(t *testing.T) {
			cost, rec := serveWork(t, e.srv, hostileRequest(t, e, body, signed))
			t.Logf("%d objects, %d bytes, CPU %v", cost.mallocs, cost.bytes, cost.cpu)
			wantError(t, rec.Code, rec.Body.String(), status, code, "")
			if limit := uint64(maxRefusalBodyCopies*len(body) + 64<<10); cost.bytes > limit {
				t.Errorf("refusing a %d-byte request allocated %d bytes, want at most %d: more than reading it takes", len(body), cost.bytes, limit)
			}
			if cost.cpu > maxRefusalCPU {
				t.Errorf("refusing a %d-byte request cost %v of CPU, want well under %v", len(body), cost.cpu, maxRefusalCPU)
			}
		})
	}
}

// unsignedHostileBodies are refused with 403 before their form is read; signedHostileBodies, over the
// form limits, with a validation error.
var (
	unsignedHostileBodies = map[string]string{
		"dotted key":   dottedKeyBody,
		"many params":  "Action=DescribeTargetGroups&Version=2015-12-01" + strings.Repeat("&a=1", 260000),
		"deep list":    "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("x.1.", 260000) + "=1",
		"escaped keys": "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("%41", 340000) + "=1",
	}
	signedHostileBodies = map[string]string{
		"dotted key":  dottedKeyBody,
		"long key":    "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("a", 600) + "=1",
		"deep key":    "Action=DescribeTargetGroups&Version=2015-12-01&" + strings.Repeat("a.", 12) + "a=1",
		"many params": "Action=DescribeTargetGroups&Version=2015-12-01" + strings.Repeat("&a=1", 260000),
	}
)

// BenchmarkHostileRefusals is the cost of refusing each hostile body, unsigned (403) and signed (400), with
// the process's CPU per request beside the wall time.
func BenchmarkHostileRefusals(b *testing.B) {
	e := newEnv(b, fakeaws.Options{MaxBodyBytes: 2 << 20})
	for _, signed := range []bool{false, true} {
		bodies := unsignedHostileBodies
		if signed {
			bodies = signedHostileBodies
		}
		for name, body := range bodies {
			b.Run(fmt.Sprintf("signed=%v/%s", signed, name), func(b *testing.B) {
				newReq := hostileRequest(b, e, body, signed)
				b.SetBytes(int64(len(body)))
				b.ReportAllocs()
				cpu := cpuTime(b)
				for b.Loop() {
					e.srv.ServeHTTP(httptest.NewRecorder(), newReq())
				}
				b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// TestHostileUnsignedRequestIsCheap: an unsigned 1 MiB request is refused with 403 for the work of reading
// it, whatever its form holds.
func TestHostileUnsignedRequestIsCheap(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxBodyBytes: 2 << 20})
	wantCheapRefusals(t, e, unsignedHostileBodies, false, http.StatusForbidden, "MissingAuthenticationToken")
}

// TestHostileSignedFormsAreBounded: a correctly signed request over the form limits is refused with a
// validation error in bounded time.
func TestHostileSignedFormsAreBounded(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxBodyBytes: 2 << 20})
	wantCheapRefusals(t, e, signedHostileBodies, true, http.StatusBadRequest, "ValidationError")
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

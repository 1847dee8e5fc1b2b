package fakeaws_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/restartsim/restartsim/fakeaws"
)

// lookingSigned is the head of a form POST claiming length bytes, with the SigV4 headers anyone who knows
// the (not secret) access key ID can write: the right key, the current date, a signature that cannot
// match. It passes every check the headers decide, so only the body can refuse it.
func lookingSigned(host string, length int) string {
	now := time.Now().UTC()
	return fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: %d\r\n"+
		"X-Amz-Date: %s\r\nAuthorization: AWS4-HMAC-SHA256 Credential=%s/%s/us-west-2/elasticloadbalancing/aws4_request, SignedHeaders=content-type;host;x-amz-date, Signature=%s\r\n\r\n",
		host, length, now.Format("20060102T150405Z"), testKey, now.Format("20060102"), strings.Repeat("0", 64))
}

// startLoopback starts a server with the test credentials on a loopback port; it returns the server and
// its address.
func startLoopback(t *testing.T, opts fakeaws.Options) (*fakeaws.Server, string) {
	t.Helper()
	opts.AccessKeyID, opts.SecretAccessKey = testKey, testSecret
	srv, err := fakeaws.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	u, err := srv.Start("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv, strings.TrimPrefix(u, "http://")
}

// waitFor polls cond until it holds (the positive sign a test waits for) or 20 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		return cond(), nil
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", what, err)
	}
}

// statusLine reads the status line of the answer on conn (deadline 20 s; "" when there is none).
func statusLine(conn net.Conn) string {
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	line, _ := bufio.NewReader(conn).ReadString('\n')
	return strings.TrimSpace(line)
}

// TestHeaderOnlyBodiesHoldLittle: connections that send the headers of a 1 MiB body and one byte hold the
// first small buffer each, not their Content-Length; bodies take at most three quarters of the connections,
// those beyond are refused with 503 at once, and /healthz still answers while they hang.
func TestHeaderOnlyBodiesHoldLittle(t *testing.T) {
	// A read timeout long enough that no held body is cut off for idling (a sixth of it) while a slow
	// machine opens the others.
	srv, addr := startLoopback(t, fakeaws.Options{MaxConnections: 16, MaxObjectBytes: 64 << 10, MaxInFlightBodyBytes: 2 << 20,
		ReadTimeout: 10 * time.Minute})
	const slots, conns = 12, 30 // 16 - 16/4 slots
	var held []net.Conn
	for i := range conns {
		held = append(held, dialAndWrite(t, addr, lookingSigned(addr, 1<<20)+"A"))
		waitFor(t, "the connection's body to be read or refused", func() bool {
			bodies, _, refused := srv.BodiesInFlight()
			return bodies+refused == int64(i+1)
		})
	}
	bodies, bytes, refused := srv.BodiesInFlight()
	if bodies != slots || refused != conns-slots {
		t.Fatalf("%d bodies read, %d refused; want %d read, %d refused", bodies, refused, slots, conns-slots)
	}
	if bytes > slots*4<<10 {
		t.Fatalf("%d header-only bodies hold %d bytes, want at most %d (4 KiB each, not their 1 MiB)", bodies, bytes, slots*4<<10)
	}
	if st := statusLine(held[conns-1]); !strings.HasPrefix(st, "HTTP/1.1 503") {
		t.Fatalf("a body beyond the slots was answered %q, want 503", st)
	}
	client := &http.Client{Timeout: 20 * time.Second}
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("/healthz while %d bodies hang: %v", bodies, err)
	}
	resp.Body.Close()
}

// TestBodiesHoldWhatArrivedWithinTheBudget: a trickled body holds about what has arrived, and bodies that
// keep arriving stop at the byte budget: the one that cannot get room is refused with 503.
func TestBodiesHoldWhatArrivedWithinTheBudget(t *testing.T) {
	const budget = 1<<20 + 256<<10
	srv, addr := startLoopback(t, fakeaws.Options{MaxObjectBytes: 64 << 10, MaxInFlightBodyBytes: budget})

	first := dialAndWrite(t, addr, lookingSigned(addr, 1<<20)+strings.Repeat("a", 10<<10))
	waitFor(t, "10 KiB to be held", func() bool { _, held, _ := srv.BodiesInFlight(); return held >= 10<<10 })
	if _, held, _ := srv.BodiesInFlight(); held > 2*10<<10+4<<10 {
		t.Fatalf("10 KiB of a 1 MiB body hold %d bytes, want at most twice what arrived", held)
	}
	// Three bodies of 600 KiB each need 3 × 1 MiB of buffers (doubling): the budget takes one and a bit.
	conns := []net.Conn{first}
	for range 3 {
		conns = append(conns, dialAndWrite(t, addr, lookingSigned(addr, 1<<20)+strings.Repeat("a", 600<<10)))
	}
	waitFor(t, "a body to be refused", func() bool { _, _, refused := srv.BodiesInFlight(); return refused > 0 })
	if _, held, _ := srv.BodiesInFlight(); held > budget {
		t.Fatalf("bodies hold %d bytes, over the %d budget", held, budget)
	}
	for _, c := range conns {
		c.Close()
	}
	waitFor(t, "the budget to be given back", func() bool { bodies, held, _ := srv.BodiesInFlight(); return bodies == 0 && held == 0 })
}

// TestStalledBodyIsCutOff: a body that stops arriving is cut off after a sixth of the read timeout, while
// one that keeps trickling lives until the read timeout itself.
func TestStalledBodyIsCutOff(t *testing.T) {
	// An idle limit of 2 s: far above the trickle's 100 ms gaps even on a loaded machine; the read
	// timeout ends the trickling body within waitFor's 20 s.
	srv, addr := startLoopback(t, fakeaws.Options{ReadTimeout: 12 * time.Second})
	trickler := dialAndWrite(t, addr, lookingSigned(addr, 1<<20)+"A")
	go func() {
		for {
			time.Sleep(100 * time.Millisecond)
			if _, err := io.WriteString(trickler, "A"); err != nil {
				return
			}
		}
	}()
	dialAndWrite(t, addr, lookingSigned(addr, 1<<20)+"A")
	waitFor(t, "both bodies to be read", func() bool { bodies, _, _ := srv.BodiesInFlight(); return bodies == 2 })
	waitFor(t, "the stalled body to be cut off", func() bool { bodies, _, _ := srv.BodiesInFlight(); return bodies < 2 })
	if bodies, _, _ := srv.BodiesInFlight(); bodies != 1 {
		t.Fatalf("%d bodies left, want the trickling one", bodies)
	}
	waitFor(t, "the read timeout to end the trickling body", func() bool { bodies, _, _ := srv.BodiesInFlight(); return bodies == 0 })
}

// TestBodiesBusyIsAWSShaped: a valid call that finds every body slot taken gets the service's 503
// (ELBv2 ServiceUnavailable, EC2 Unavailable), which SDKs retry.
func TestBodiesBusyIsAWSShaped(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxConnections: 4, MaxObjectBytes: 64 << 10, MaxInFlightBodyBytes: 2 << 20})
	addr := strings.TrimPrefix(e.http.URL, "http://")
	for range 3 { // 4 - 4/4 slots
		dialAndWrite(t, addr, lookingSigned(addr, 1<<20)+"A")
	}
	waitFor(t, "three bodies to be read", func() bool { bodies, _, _ := e.srv.BodiesInFlight(); return bodies == 3 })
	_, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{})
	wantCode(t, err, "ServiceUnavailable")
	if st := httpStatus(err); st != http.StatusServiceUnavailable {
		t.Fatalf("ELB status %d", st)
	}
	_, err = e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	wantCode(t, err, "Unavailable")
}

// TestRefusedBeforeTheBody: a request that its headers already refuse (no signature, an unknown key, a
// signature of the wrong shape, a stale date, wrong admin credentials) is answered without waiting for
// its body.
func TestRefusedBeforeTheBody(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	addr := strings.TrimPrefix(e.http.URL, "http://")
	head := lookingSigned(addr, 1<<20)
	for name, tc := range map[string]struct{ head, status string }{
		"unsigned":    {fmt.Sprintf("POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 1048576\r\n\r\n", addr), "403"},
		"unknown key": {strings.Replace(head, testKey, "AKIDOTHER", 1), "403"},
		"not hex":     {strings.Replace(head, strings.Repeat("0", 64), strings.Repeat("z", 64), 1), "403"},
		"stale date":  {strings.Replace(head, time.Now().UTC().Format("20060102T150405Z"), time.Now().UTC().Add(-time.Hour).Format("20060102T150405Z"), 1), "403"},
		"admin":       {fmt.Sprintf("POST /_restartsim/seed/vpc HTTP/1.1\r\nHost: %s\r\nContent-Length: 1048576\r\n%s: %s\r\n%s: wrong\r\n\r\n", addr, fakeaws.AdminAccessKeyHeader, testKey, fakeaws.AdminSecretKeyHeader), "403"},
	} {
		t.Run(name, func(t *testing.T) {
			conn := dialAndWrite(t, addr, tc.head+"A")
			if st := statusLine(conn); !strings.HasPrefix(st, "HTTP/1.1 "+tc.status) {
				t.Fatalf("answered %q before the body, want %s", st, tc.status)
			}
		})
	}
	if bodies, held, _ := e.srv.BodiesInFlight(); bodies != 0 || held != 0 {
		t.Fatalf("refused requests left %d bodies, %d bytes", bodies, held)
	}
}

// TestLongInputIsClippedInErrors: an error that repeats what the client sent repeats at most 256 bytes
// of each value, with a marker, whatever it sent.
func TestLongInputIsClippedInErrors(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	long := strings.Repeat("A", 100_000)
	for _, tc := range []struct{ service, body, code string }{
		{"elasticloadbalancing", "Action=" + long + "&Version=2015-12-01", "InvalidAction"},
		{"elasticloadbalancing", "Action=DescribeTargetGroups&Version=" + long, "InvalidAction"},
		{"ec2", "Action=" + long + "&Version=2016-11-15", "InvalidAction"},
		{"elasticloadbalancing", "Action=DescribeTargetGroups&Version=2015-12-01&TargetGroupArns.member.1=" + long, "ValidationError"},
		{"ec2", "Action=DescribeInstances&Version=2016-11-15&InstanceId.1=" + long, "InvalidInstanceID.Malformed"},
	} {
		status, out := send(t, e, signedReq(t, e, tc.service, tc.body, time.Now()), tc.body)
		wantError(t, status, out, http.StatusBadRequest, tc.code, "")
		if len(out) > 2048 || !strings.Contains(out, "bytes)") {
			t.Errorf("%s %.40s...: a %d-byte answer: %.400s", tc.service, tc.body, len(out), out)
		}
	}
	// A stale, enormous X-Amz-Date is not repeated whole either.
	req := signedReq(t, e, "elasticloadbalancing", elbBody, time.Now())
	req.Header.Set("X-Amz-Date", long)
	status, out := send(t, e, req, elbBody)
	wantError(t, status, out, http.StatusForbidden, "IncompleteSignature", "ISO-8601")
	if len(out) > 2048 {
		t.Errorf("bad X-Amz-Date: a %d-byte answer", len(out))
	}
	// Nor is an admin request's long JSON value.
	code, body := adminDo(t, e, http.MethodPost, "/_restartsim/limit", `{"operation":"`+strings.Repeat("x", 5000)+`","rate":-5,"burst":"x"}`, true)
	if code != http.StatusBadRequest || len(body) > 2048 {
		t.Errorf("admin: %d, a %d-byte answer", code, len(body))
	}
}

// TestStartChecksTheAddressBeforeBinding: an every-interface address is refused before Start listens on it
// (here the port is taken, so binding first would fail differently).
func TestStartChecksTheAddressBeforeBinding(t *testing.T) {
	taken, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	srv, err := fakeaws.New(fakeaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start(taken.Addr().String()); err == nil || !strings.Contains(err.Error(), fakeaws.ErrNonLoopback.Error()) {
		t.Fatalf("Start(%s) = %v, want ErrNonLoopback before any bind", taken.Addr(), err)
	}
	for addr, ok := range map[string]bool{"0.0.0.0:1": false, "[::]:1": false, "10.1.2.3:1": false, "example.com:1": false,
		":1": true, "127.0.0.1:1": true, "[::1]:1": true, "localhost:1": true} {
		if err := fakeaws.CheckListenAddress(addr, false); (err == nil) != ok {
			t.Errorf("CheckListenAddress(%s) = %v, want accepted %v", addr, err, ok)
		}
		if err := fakeaws.CheckListenAddress(addr, true); err != nil {
			t.Errorf("CheckListenAddress(%s, allowed) = %v", addr, err)
		}
	}
}

// TestInFlightBodyMetric: the gauges of what bodies hold are exported under fakeaws_ names.
func TestInFlightBodyMetric(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	_, body := adminDo(t, e, http.MethodGet, "/_restartsim/metrics", "", true)
	for _, name := range []string{"fakeaws_inflight_body_bytes", "fakeaws_inflight_bodies", "fakeaws_body_limit_refusals_total", "fakeaws_s3_stored_bytes"} {
		if !strings.Contains(body, "\n"+name+" ") {
			t.Errorf("metric %s missing", name)
		}
	}
}

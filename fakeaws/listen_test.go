package fakeaws_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestNonLoopbackListenRefused: Start and Serve refuse every-interface addresses unless AllowNonLoopback.
func TestNonLoopbackListenRefused(t *testing.T) {
	srv, err := fakeaws.New(fakeaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start("0.0.0.0:0"); !errors.Is(err, fakeaws.ErrNonLoopback) {
		t.Fatalf("Start(0.0.0.0:0) = %v, want ErrNonLoopback", err)
	}
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := srv.Serve(context.Background(), ln); !errors.Is(err, fakeaws.ErrNonLoopback) {
		t.Fatalf("Serve on %s = %v, want ErrNonLoopback", ln.Addr(), err)
	}
	open, err := fakeaws.New(fakeaws.Options{AllowNonLoopback: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open.Start("0.0.0.0:0"); err != nil {
		t.Fatalf("Start with AllowNonLoopback: %v", err)
	}
	open.Close()
}

func TestWeakCredentials(t *testing.T) {
	for _, c := range []struct {
		id, secret string
		weak       bool
	}{{"restartsim", "restartsim", true}, {"a", "b", true}, {"key", "key", true}, {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG", false}} {
		if got := fakeaws.WeakCredentials(c.id, c.secret) != ""; got != c.weak {
			t.Errorf("WeakCredentials(%q, %q) weak = %v, want %v", c.id, c.secret, got, c.weak)
		}
	}
}

// TestHealthzNeedsNoCredentials: a liveness probe gets 200 without signing; everything else still needs it.
func TestHealthzNeedsNoCredentials(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	resp, err := http.Get(e.http.URL + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK || body != "ok\n" {
		t.Fatalf("/healthz: %d %q", resp.StatusCode, body)
	}
	resp, err = http.Get(e.http.URL + "/_restartsim/state")
	if err != nil {
		t.Fatal(err)
	}
	if resp.Body.Close(); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("/_restartsim/state unsigned: %d, want 403", resp.StatusCode)
	}
}

// startTimed starts a server on loopback with short connection timeouts.
func startTimed(t *testing.T, opts fakeaws.Options) string {
	t.Helper()
	_, addr := startLoopback(t, opts)
	return addr
}

// closedWithin reports whether the server closes conn (a read returns EOF or a reset) within d.
func closedWithin(conn net.Conn, d time.Duration) bool {
	_ = conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.ReadAll(conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// TestSlowAndIdleConnectionsAreClosed: a body trickled a byte at a time and an idle keep-alive connection are
// both cut off by the server's read and idle timeouts.
func TestSlowAndIdleConnectionsAreClosed(t *testing.T) {
	addr := startTimed(t, fakeaws.Options{ReadTimeout: 300 * time.Millisecond, IdleTimeout: 300 * time.Millisecond})
	if !closedWithin(dialAndWrite(t, addr, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nA"), 3*time.Second) {
		t.Fatal("a connection with a stalled body was still open after 3s (ReadTimeout 300ms)")
	}
	if !closedWithin(dialAndWrite(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), 3*time.Second) {
		t.Fatal("an idle keep-alive connection was still open after 3s (IdleTimeout 300ms)")
	}
}

func dialAndWrite(t *testing.T, addr, data string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, data); err != nil {
		t.Fatal(err)
	}
	return c
}

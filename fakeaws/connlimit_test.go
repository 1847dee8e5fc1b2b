package fakeaws_test

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestHealthzAndAdminWhileSaturated: with more idle or slow connections than MaxConnections open, /healthz
// and the admin API still answer at once; the connections waiting longest without a request in a
// handler are closed to make room. A plain limit made /healthz wait ~9 s for the header timeout.
func TestHealthzAndAdminWhileSaturated(t *testing.T) {
	const limit, conns = 512, 600
	for _, tt := range []struct{ name, send string }{
		{"idle, nothing sent", ""},
		{"idle after a request", "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"headers trickling", "GET /healthz HTTP/1.1\r\nHost: x\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, addr := startLoopback(t, fakeaws.Options{})
			for range conns {
				dialAndWrite(t, addr, tt.send)
			}
			last := ""
			defer func() { t.Logf("connections: %s", last) }()
			waitFor(t, "the connections over the limit to be let in", func() bool {
				open, closed := srv.Connections()
				last = fmt.Sprintf("%d open, %d closed for room", open, closed)
				return open == limit && closed == conns-limit
			})
			client := &http.Client{Timeout: 20 * time.Second}
			for _, path := range []string{"/healthz", "/_restartsim/now"} {
				req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
				req.Header.Set(fakeaws.AdminAccessKeyHeader, testKey)
				req.Header.Set(fakeaws.AdminSecretKeyHeader, testSecret)
				start := time.Now()
				resp, err := client.Do(req)
				took := time.Since(start)
				if err != nil {
					t.Fatalf("%s with %d connections open: %v", path, conns, err)
				}
				resp.Body.Close()
				t.Logf("%s answered %d in %v with %d connections open", path, resp.StatusCode, took, conns)
				if resp.StatusCode != http.StatusOK || took > time.Second {
					t.Errorf("%s: %d after %v, want 200 within 1s", path, resp.StatusCode, took)
				}
			}
		})
	}
}

// TestConnectionLimit: a connection over MaxConnections takes the slot of the one waiting longest without a
// request in a handler, and waits while every slot is handling a request.
func TestConnectionLimit(t *testing.T) {
	srv, addr := startLoopback(t, fakeaws.Options{MaxConnections: 2, ReadTimeout: time.Minute})
	first := dialAndWrite(t, addr, "")
	second := dialAndWrite(t, addr, "")
	waitFor(t, "two connections", func() bool { open, _ := srv.Connections(); return open == 2 })
	third := dialAndWrite(t, addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	if st := statusLine(third); !strings.HasPrefix(st, "HTTP/1.1 200") {
		t.Fatalf("a third connection over two idle ones: %q, want 200", st)
	}
	if !closedWithin(first, 5*time.Second) {
		t.Fatal("the oldest idle connection was not closed to make room")
	}
	if _, closed := srv.Connections(); closed != 1 {
		t.Fatalf("%d connections closed for room, want 1", closed)
	}
	second.Close()

	// Two calls streams hold both slots in their handlers: a third connection waits for one.
	var streams []net.Conn
	for range 2 {
		c := dialAndWrite(t, addr, fmt.Sprintf("GET /_restartsim/calls/stream HTTP/1.1\r\nHost: x\r\n%s: %s\r\n%s: %s\r\n\r\n",
			fakeaws.AdminAccessKeyHeader, testKey, fakeaws.AdminSecretKeyHeader, testSecret))
		if st := statusLine(c); !strings.HasPrefix(st, "HTTP/1.1 200") {
			t.Fatalf("calls stream: %q", st)
		}
		streams = append(streams, c)
	}
	third.Close()
	waitFor(t, "the streams to hold both slots", func() bool { open, _ := srv.Connections(); return open == 2 })
	client := &http.Client{Timeout: 300 * time.Millisecond}
	if resp, err := client.Get("http://" + addr + "/healthz"); err == nil {
		resp.Body.Close()
		t.Fatal("a connection was served while both slots were handling requests")
	}
	streams[0].Close()
	client.Timeout = 20 * time.Second
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatalf("after a stream ended: %v", err)
	}
	resp.Body.Close()
}

// TestAdminNow: GET /_restartsim/now answers the scenario clock's time as JSON.
func TestAdminNow(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	e.clock.Step(90 * time.Second)
	code, body := adminDo(t, e, http.MethodGet, "/_restartsim/now", "", true)
	var got struct{ Now time.Time }
	if err := json.Unmarshal([]byte(body), &got); code != http.StatusOK || err != nil {
		t.Fatalf("now: %d %q (%v)", code, body, err)
	}
	if want := e.srv.Now(); !got.Now.Equal(want) || !got.Now.Equal(t0.Add(90*time.Second)) {
		t.Errorf("now = %v, want %v", got.Now, want)
	}
	if code, _ := adminDo(t, e, http.MethodGet, "/_restartsim/now", "", false); code != http.StatusForbidden {
		t.Errorf("unsigned now: %d, want 403", code)
	}
}

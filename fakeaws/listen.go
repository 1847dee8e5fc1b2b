package fakeaws

import (
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"strings"

	"github.com/go-logr/logr"
)

// ErrNonLoopback is returned by Start and Serve for a listener outside loopback without
// Options.AllowNonLoopback.
var ErrNonLoopback = errors.New("fakeaws: refusing to listen beyond loopback without AllowNonLoopback")

func (s *Server) checkListener(ln net.Listener) error {
	if s.opts.AllowNonLoopback || IsLoopback(ln.Addr()) {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrNonLoopback, ln.Addr())
}

// CheckListenAddress refuses, before anything is bound, a host:port that would listen beyond loopback
// (ErrNonLoopback) unless allowNonLoopback: the host must be a loopback IP, "localhost" or empty (Start
// binds 127.0.0.1 then). Start and Serve check the bound listener again.
func CheckListenAddress(addr string, allowNonLoopback bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("fakeaws: listen address %q: %w", addr, err)
	}
	if allowNonLoopback || host == "" || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w (%s)", ErrNonLoopback, addr)
}

// IsLoopback reports whether a listener address accepts loopback connections only (a TCP address on
// 127.0.0.0/8 or ::1, or a Unix socket).
func IsLoopback(addr net.Addr) bool {
	switch a := addr.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	}
	return false
}

// WeakCredentials says what is weak about a key pair ("" when nothing is): anyone who can reach a server
// listening beyond loopback can guess a short or default secret.
func WeakCredentials(accessKeyID, secret string) string {
	switch {
	case secret == "restartsim" || secret == accessKeyID:
		return "the secret access key is the default or equals the access key ID"
	case len(secret) < 16:
		return fmt.Sprintf("the secret access key has %d characters (fewer than 16)", len(secret))
	}
	return ""
}

func serveHealthz(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte("ok\n"))
}

// httpErrorLog sends net/http's own complaints (timeouts, TLS probes, malformed requests) to the logger at V(1):
// a hostile client must not be able to flood the default log.
func httpErrorLog(l logr.Logger) *log.Logger {
	return log.New(logWriter{l}, "", 0)
}

type logWriter struct{ l logr.Logger }

func (w logWriter) Write(p []byte) (int, error) {
	w.l.V(1).Info("http server", "message", strings.TrimSpace(string(p)))
	return len(p), nil
}

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

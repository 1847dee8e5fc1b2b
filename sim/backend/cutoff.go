package backend

import (
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"time"
)

// Cutoff is a per-controller-instance AWS endpoint: a loopback listener that forwards to fakeaws until
// it is cut, so a "crashed" in-process instance can no longer reach AWS.
type Cutoff struct {
	srv *http.Server
	URL string
}

// NewCutoff starts a cut-off proxy in front of b.
func NewCutoff(b Backend) (*Cutoff, error) {
	h := b.Handler()
	if h == nil {
		u, err := url.Parse(b.URL())
		if err != nil {
			return nil, err
		}
		h = httputil.NewSingleHostReverseProxy(u) // Host is kept, so SigV4 signatures still match
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	g := &Cutoff{srv: &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}, URL: "http://" + ln.Addr().String()}
	go g.srv.Serve(ln) //nolint:errcheck // ends with Close
	return g, nil
}

// Cut closes the listener and every connection at once.
func (g *Cutoff) Cut() { _ = g.srv.Close() }

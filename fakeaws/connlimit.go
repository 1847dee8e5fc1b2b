package fakeaws

import (
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
)

// connCounts counts a server's connections, for its metrics.
type connCounts struct {
	open   atomic.Int64 // holding a slot
	closed atomic.Int64 // closed at the limit to make room for a new connection
}

// connLimiter caps the connections a listener hands to the HTTP server at max. At the cap, a new
// connection takes the slot of the connection that has waited longest without a request being
// handled on it: one that has sent nothing, sits idle between requests, or is still trickling its
// headers. The new connection waits only while every slot is handling a request. A plain limit
// (netutil.LimitListener) left /healthz and the admin API waiting for the read-header or idle
// timeout while idle or slow connections held every slot; clients of the data port retry a
// closed idle connection as they retry any the server closes.
type connLimiter struct {
	net.Listener
	max    int
	counts *connCounts

	mu    sync.Mutex
	open  map[*limitedConn]struct{}
	seq   uint64        // orders the connections' last changes, oldest first
	freed chan struct{} // closed, and replaced, when a slot frees
	done  chan struct{} // closed by Close
	once  sync.Once
}

func newConnLimiter(ln net.Listener, max int, counts *connCounts) *connLimiter {
	return &connLimiter{Listener: ln, max: max, counts: counts, open: map[*limitedConn]struct{}{},
		freed: make(chan struct{}), done: make(chan struct{})}
}

// limitedConn is a connection holding a slot; its fields are guarded by the limiter's mutex.
type limitedConn struct {
	net.Conn
	l        *connLimiter
	handling int    // requests in a handler (one, or a hijack)
	since    uint64 // the limiter's seq when the connection last changed
	evicted  bool   // being closed to make room
	closing  sync.Once
}

// Accept waits for a connection and for a slot for it.
func (l *connLimiter) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitedConn{Conn: c, l: l}
	for {
		l.mu.Lock()
		if len(l.open) < l.max {
			l.seq++
			lc.since = l.seq
			l.open[lc] = struct{}{}
			l.counts.open.Add(1)
			l.mu.Unlock()
			return lc, nil
		}
		victim, freed := l.longestWaitingLocked(), l.freed
		if victim != nil {
			victim.evicted = true
			l.counts.closed.Add(1)
		}
		l.mu.Unlock()
		if victim != nil {
			victim.closeSlot()
			continue
		}
		select {
		case <-freed:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// longestWaitingLocked returns the open connection without a request in a handler that changed
// longest ago, or nil when every one is handling a request.
func (l *connLimiter) longestWaitingLocked() *limitedConn {
	var victim *limitedConn
	for c := range l.open {
		if c.handling == 0 && !c.evicted && (victim == nil || c.since < victim.since) {
			victim = c
		}
	}
	return victim
}

// Close stops Accept, including one waiting for a slot.
func (l *connLimiter) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// touch records that c changed state; handling adds to its requests in a handler.
func (l *connLimiter) touch(c *limitedConn, handling int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	c.since = l.seq
	c.handling += handling
}

func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.release()
	return err
}

// closeSlot closes the connection to make room; its slot is free when it returns.
func (c *limitedConn) closeSlot() {
	_ = c.Conn.Close()
	c.release()
}

// release frees the connection's slot, once.
func (c *limitedConn) release() {
	c.closing.Do(func() {
		l := c.l
		l.mu.Lock()
		delete(l.open, c)
		l.counts.open.Add(-1)
		close(l.freed)
		l.freed = make(chan struct{})
		l.mu.Unlock()
	})
}

// connState is the HTTP server's ConnState hook: a hijacked connection is the handler's for good.
func connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*limitedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateHijacked:
		c.l.touch(c, 1)
	case http.StateActive, http.StateIdle:
		c.l.touch(c, 0)
	}
}

type connKey struct{}

// connContext is the HTTP server's ConnContext hook: it lets a handler mark its connection busy.
func connContext(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*limitedConn); ok {
		return context.WithValue(ctx, connKey{}, c)
	}
	return ctx
}

// handling marks r's connection as handling a request until the returned function is called.
func handling(r *http.Request) func() {
	c, ok := r.Context().Value(connKey{}).(*limitedConn)
	if !ok {
		return func() {}
	}
	c.l.touch(c, 1)
	return func() { c.l.touch(c, -1) }
}

package fakeaws

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

var (
	// errBodyTooLarge: the body is (or says it is) longer than the limit of its kind.
	errBodyTooLarge = errors.New("request body too large")
	// errBodiesBusy: the bodies being read already hold the memory or connections bodies may have.
	errBodiesBusy = errors.New("in-flight request bodies at their limit")
)

// bodyBudgetWait is how long a body waits for memory other bodies hold before it is refused: long enough
// to ride out a burst of valid requests, short enough that a refused client learns at once.
const bodyBudgetWait = time.Second

// firstBodyBuffer is the most a body buffer holds before anything has arrived: a client that sends headers
// claiming a large body and then nothing costs this, not its Content-Length.
const firstBodyBuffer = 4 << 10

// bodyLimiter bounds what request bodies hold while they are read, across connections: at most slots
// bodies at once (so that bodies never take every connection and /healthz still gets one), at most budget
// bytes of buffers between them, reserved as each buffer grows with what has arrived, and a body that
// stops arriving for idle is cut off (the server's read timeout bounds the whole request).
type bodyLimiter struct {
	idle, whole time.Duration
	slots       *semaphore.Weighted
	bytes       *semaphore.Weighted
	held        atomic.Int64 // bytes reserved by bodies being read or served
	readers     atomic.Int64 // bodies being read
	refusals    atomic.Int64 // requests refused with errBodiesBusy
}

func newBodyLimiter(budget int64, slots int, readTimeout time.Duration) *bodyLimiter {
	return &bodyLimiter{slots: semaphore.NewWeighted(int64(slots)), bytes: semaphore.NewWeighted(budget),
		idle: readTimeout / 6, whole: readTimeout}
}

// heldBody is a body read under the limiter; release gives its memory back once the request has been
// answered (until then the handler may still use the bytes). Its slot is given back as soon as it has been
// read: slots bound the connections that wait for bodies, not the requests being served (injected latency
// is waited with the body read).
type heldBody struct {
	data     []byte
	l        *bodyLimiter
	reserved int64
}

func (b *heldBody) release() {
	if b == nil || b.l == nil {
		return
	}
	b.l.bytes.Release(b.reserved)
	b.l.held.Add(-b.reserved)
	b.l = nil
}

// grow makes room for at least one more byte, up to most bytes of capacity, reserving what it adds; it
// waits up to bodyBudgetWait for memory other bodies hold.
func (b *heldBody) grow(ctx context.Context, most int64) error {
	newCap := min(max(2*int64(cap(b.data)), firstBodyBuffer), most)
	add := newCap - int64(cap(b.data))
	wctx, cancel := context.WithTimeout(ctx, bodyBudgetWait)
	defer cancel()
	if err := b.l.bytes.Acquire(wctx, add); err != nil {
		return errBodiesBusy
	}
	b.reserved += add
	b.l.held.Add(add)
	grown := make([]byte, len(b.data), newCap)
	copy(grown, b.data)
	b.data = grown
	return nil
}

// read reads r's body, at most limit bytes (errBodyTooLarge beyond, without reading when Content-Length
// already says so). The buffer starts small and doubles only when full, so it never holds more than twice
// what has arrived (plus firstBodyBuffer); every byte of it is reserved from the budget. Each read waits
// at most the idle time (a sixth of the read timeout) for the next bytes. The caller releases the result
// once the request is answered, also after an error.
func (l *bodyLimiter) read(w http.ResponseWriter, r *http.Request, limit int64) (*heldBody, error) {
	if r.ContentLength > limit {
		return nil, errBodyTooLarge
	}
	if r.ContentLength == 0 || r.Body == nil || r.Body == http.NoBody {
		return &heldBody{}, nil
	}
	if !l.slots.TryAcquire(1) {
		l.refusals.Add(1)
		return nil, errBodiesBusy
	}
	l.readers.Add(1)
	defer func() {
		l.slots.Release(1)
		l.readers.Add(-1)
	}()
	b := &heldBody{l: l}
	ctx, rc := r.Context(), http.NewResponseController(w)
	end := time.Now().Add(l.whole)
	// Room for one byte past the end, so that the read that sees end of file needs no growth.
	most := limit + 1
	if r.ContentLength > 0 {
		most = r.ContentLength + 1
	}
	for {
		if len(b.data) == cap(b.data) {
			if int64(len(b.data)) > limit {
				return b, errBodyTooLarge
			}
			if int64(cap(b.data)) >= most { // longer than its Content-Length said (a reader other than net/http's)
				most = limit + 1
			}
			if err := b.grow(ctx, most); err != nil {
				l.refusals.Add(1)
				return b, err
			}
		}
		if l.idle > 0 {
			_ = rc.SetReadDeadline(earliest(end, time.Now().Add(l.idle))) // unsupported by test recorders: no deadline
		}
		n, err := r.Body.Read(b.data[len(b.data):cap(b.data)])
		b.data = b.data[:len(b.data)+n]
		switch {
		case int64(len(b.data)) > limit:
			return b, errBodyTooLarge
		case errors.Is(err, io.EOF):
			return b, nil
		case err != nil:
			return b, err
		}
	}
}

func earliest(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// abandonGrace is how long a refused request's large body may still be read, once the answer is out, to
// discard what the client sends meanwhile. A body that has not arrived by then is not waited for.
const abandonGrace = 250 * time.Millisecond

// maxDiscard is the most of a refused large body read and thrown away (within abandonGrace): on loopback
// that is about the time a client needs to read the refusal before the close resets the connection.
const maxDiscard = 64 << 20

// smallBody is the most net/http reads (and discards) of a body a handler left unread, to keep the
// connection for the next request.
const smallBody = 256 << 10

// refuse prepares the answer to a request refused before (or while) its body is read; call the returned
// function once the answer is written. What is left of a small body is discarded by net/http as usual
// (the connection is kept), but given only the idle time to arrive. A large or unannounced one is not
// waited for: the connection closes after the answer, and meanwhile what the client still sends (up to
// maxDiscard, within abandonGrace) is discarded, so that a client that sent its body without waiting for
// the answer (or for 100 Continue) reads the refusal rather than a connection reset.
func (l *bodyLimiter) refuse(w http.ResponseWriter, r *http.Request) (afterAnswer func()) {
	rc := http.NewResponseController(w)
	if r.ContentLength >= 0 && r.ContentLength <= smallBody {
		_ = rc.SetReadDeadline(time.Now().Add(l.idle))
		return func() {}
	}
	w.Header().Set("Connection", "close")
	end := time.Now().Add(abandonGrace)
	_ = rc.SetReadDeadline(end)
	return func() {
		_ = rc.Flush()
		if r.Body == nil {
			return
		}
		// A client that is sending keeps sending; one that pauses for drainGap is not waited for.
		const chunk = 64 << 10
		for n := 0; n < maxDiscard; n += chunk {
			_ = rc.SetReadDeadline(earliest(end, time.Now().Add(drainGap)))
			if _, err := io.CopyN(io.Discard, r.Body, chunk); err != nil {
				return
			}
		}
	}
}

// drainGap is how long a refused body's discard waits for more bytes.
const drainGap = 50 * time.Millisecond

// peekLimit is how much of a refused request's body is read to learn which service's error format to
// answer in: SDKs send Action and Version first.
const peekLimit = 4 << 10

// peekVersion returns the Version parameter of r (URL query, or the first peekLimit bytes of the body up to
// their last complete parameter, if they come within drainGap) for a request refused before its body is
// read; "" when there is none or the budget is spent.
func (l *bodyLimiter) peekVersion(w http.ResponseWriter, r *http.Request) string {
	if v := query.Peek(nil, r.URL.RawQuery, "Version"); v != "" {
		return v
	}
	size := int64(peekLimit)
	if r.ContentLength >= 0 {
		size = min(size, r.ContentLength)
	}
	if size == 0 || r.Body == nil || !l.bytes.TryAcquire(size) {
		return ""
	}
	l.held.Add(size)
	defer func() {
		l.bytes.Release(size)
		l.held.Add(-size)
	}()
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(drainGap))
	buf := make([]byte, size)
	n, _ := io.ReadFull(r.Body, buf)
	buf = buf[:n]
	if int64(n) == peekLimit && r.ContentLength != peekLimit {
		if i := bytes.LastIndexByte(buf, '&'); i >= 0 {
			buf = buf[:i]
		} else {
			return ""
		}
	}
	return query.Peek(buf, "", "Version")
}

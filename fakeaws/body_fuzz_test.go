package fakeaws

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// chunkedReader returns its data in reads of the given sizes (then the rest), as a network would.
type chunkedReader struct {
	data  []byte
	sizes []byte
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := len(c.data)
	if len(c.sizes) > 0 {
		n = min(n, int(c.sizes[0])+1)
		c.sizes = c.sizes[1:]
	}
	n = copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// FuzzBodyLimiter: whatever a body holds, however it arrives and whatever length it claims, read returns it
// whole when it fits the limit and errBodyTooLarge when it does not, never holds more than twice what has
// arrived (plus the first buffer) nor more than the budget, and gives everything back on release.
func FuzzBodyLimiter(f *testing.F) {
	f.Add([]byte("Action=DescribeTargetGroups&Version=2015-12-01"), []byte{3, 200, 7}, int64(-1), uint16(1024))
	f.Add(bytes.Repeat([]byte("a"), 10000), []byte{255, 255, 1}, int64(10000), uint16(8192))
	f.Add(bytes.Repeat([]byte("b"), 5000), []byte{}, int64(100), uint16(65535))
	f.Add([]byte{}, []byte{}, int64(0), uint16(1))
	f.Fuzz(func(t *testing.T, body, sizes []byte, claimed int64, limit uint16) {
		const budget = 1 << 20
		l := newBodyLimiter(budget, 4, 30*time.Second)
		r, _ := http.NewRequest(http.MethodPost, "http://x/", &chunkedReader{data: body, sizes: sizes})
		r.ContentLength = claimed
		if claimed < -1 || claimed > 1<<20 {
			r.ContentLength = -1
		}
		lim := int64(limit)
		held, err := l.read(httptest.NewRecorder(), r, lim)
		switch {
		case r.ContentLength > lim:
			if !errors.Is(err, errBodyTooLarge) {
				t.Fatalf("Content-Length %d over limit %d: err %v", r.ContentLength, lim, err)
			}
		case r.ContentLength == 0:
			if err != nil || len(held.data) != 0 {
				t.Fatalf("empty body: %v %q", err, held.data)
			}
		case int64(len(body)) > lim:
			if !errors.Is(err, errBodyTooLarge) {
				t.Fatalf("%d bytes over limit %d: err %v", len(body), lim, err)
			}
		default:
			if err != nil || !bytes.Equal(held.data, body) {
				t.Fatalf("%d-byte body (limit %d, claimed %d): err %v, read %d bytes", len(body), lim, claimed, err, len(held.data))
			}
		}
		if h := l.held.Load(); h > budget || (held != nil && h > 2*int64(len(held.data))+firstBodyBuffer) {
			t.Fatalf("holds %d bytes for %d read", h, len(held.dataOrEmpty()))
		}
		held.release()
		if l.held.Load() != 0 || l.readers.Load() != 0 {
			t.Fatalf("after release: %d bytes, %d readers", l.held.Load(), l.readers.Load())
		}
	})
}

func (b *heldBody) dataOrEmpty() []byte {
	if b == nil {
		return nil
	}
	return b.data
}

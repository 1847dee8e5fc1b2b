package fakeaws

import (
	"errors"
	"io"
	"net/http"
)

// readBody reads at most limit bytes of r's body (more is an *http.MaxBytesError) into one buffer sized
// from Content-Length, so that a large body costs one allocation rather than io.ReadAll's doublings.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	size := int64(512)
	if r.ContentLength > 0 {
		size = min(r.ContentLength, limit) + 1 // +1: the read that sees end of file needs room
	}
	buf := make([]byte, 0, size)
	body := http.MaxBytesReader(w, r.Body, limit)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)] // a body longer than its Content-Length said
		}
		n, err := body.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}

// bodyTooLarge reports whether a readBody error is the body exceeding its limit.
func bodyTooLarge(err error) bool {
	var tooLarge *http.MaxBytesError
	return errors.As(err, &tooLarge)
}

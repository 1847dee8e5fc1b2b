package envtestassets

import (
	"bytes"
	"io"
	"sync"
)

// syncWriter serialises writes from the build's output and its elapsed-time ticker.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// downloadingPrefix starts the line go prints per module fetched: about 190 on a cold kube-apiserver
// build, which would bury the progress lines and go's real errors.
var downloadingPrefix = []byte("go: downloading ")

// dropDownloads passes go's output through line by line, without its "go: downloading" lines.
type dropDownloads struct {
	w   io.Writer
	buf []byte
}

func (d *dropDownloads) Write(p []byte) (int, error) {
	d.buf = append(d.buf, p...)
	for {
		i := bytes.IndexByte(d.buf, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := d.buf[:i+1]
		if !bytes.HasPrefix(line, downloadingPrefix) {
			if _, err := d.w.Write(line); err != nil {
				return len(p), err
			}
		}
		d.buf = d.buf[i+1:]
	}
}

// flush writes a last line without its newline.
func (d *dropDownloads) flush() {
	if len(d.buf) > 0 && !bytes.HasPrefix(d.buf, downloadingPrefix) {
		_, _ = d.w.Write(append(d.buf, '\n'))
	}
	d.buf = nil
}

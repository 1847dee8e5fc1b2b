package fakeaws

import (
	"bufio"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// DroppedCallsHeader is the /calls response header with the number of calls the recorder has dropped.
const DroppedCallsHeader = "X-Restartsim-Dropped-Calls"

// liftDeadlines lets a response outlive the server's read and write timeouts (which would otherwise also cancel
// the request's context).
func liftDeadlines(w http.ResponseWriter) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Time{})
	_ = rc.SetWriteDeadline(time.Time{})
}

// listCalls writes the held calls as one JSON array in batches, never building the document in memory.
func (s *Server) listCalls(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.URL.Query().Get("since"))
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set(DroppedCallsHeader, strconv.FormatUint(s.rec.Dropped(), 10))
	liftDeadlines(w) // a long log may take a while to read
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	sep := byte('[')
	var err error
	s.rec.each(n, func(batch []Call) bool {
		for i := range batch {
			if err = bw.WriteByte(sep); err == nil {
				err = enc.Encode(&batch[i])
			}
			if err != nil {
				return false
			}
			sep = ','
		}
		return true
	})
	if err != nil {
		return
	}
	if sep == '[' {
		_, _ = bw.WriteString("[")
	}
	_, _ = bw.WriteString("]\n")
	_ = bw.Flush()
}

// streamCalls writes each new call as a JSON line until the client disconnects.
func (s *Server) streamCalls(w http.ResponseWriter, r *http.Request) {
	liftDeadlines(w) // open until the client leaves
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	flusher, _ := w.(http.Flusher)
	ch := make(chan Call, 1024)
	cancel := s.rec.Subscribe(func(c Call) {
		select {
		case ch <- c:
		default: // a slow reader loses calls rather than stalling the server
		}
	})
	defer cancel()
	enc := json.NewEncoder(w)
	if flusher != nil {
		flusher.Flush()
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case c := <-ch:
			if err := enc.Encode(c); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
	}
}

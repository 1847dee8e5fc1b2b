package fakeaws

import (
	"encoding/xml"
	"net/http"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/clip"
	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/sigv4"
)

// isS3 reports whether r goes to S3: signed for service s3, or unsigned and not a Query request.
func (s *Server) isS3(r *http.Request) bool {
	if scope, ok := sigv4.ParseScope(r); ok {
		return scope.Service == "s3"
	}
	if r.Header.Get("Authorization") != "" {
		return false
	}
	if r.URL.Query().Has("Action") {
		return false
	}
	ct := r.Header.Get("Content-Type")
	return !(r.Method == http.MethodPost && strings.HasPrefix(ct, "application/x-www-form-urlencoded"))
}

// statusWriter records the status gofakes3 answers with and keeps the first keep bytes of its body; for a
// ranged GET it drops the whole object's checksums.
type statusWriter struct {
	http.ResponseWriter
	status int
	keep   int
	head   []byte
	ranged bool
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
		if w.ranged {
			stripChecksums(w.Header())
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	if room := w.keep - len(w.head); room > 0 {
		w.head = append(w.head, b[:min(len(b), room)]...)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// s3Error is S3's error document. ProposedSize and MaxSizeAllowed come with EntityTooLarge; ProposedSize,
// MinSizeAllowed, PartNumber and ETag with EntityTooSmall.
type s3Error struct {
	XMLName        xml.Name `xml:"Error"`
	Code           string   `xml:"Code"`
	Message        string   `xml:"Message"`
	ProposedSize   int64    `xml:"ProposedSize,omitempty"`
	MaxSizeAllowed int64    `xml:"MaxSizeAllowed,omitempty"`
	MinSizeAllowed int64    `xml:"MinSizeAllowed,omitempty"`
	PartNumber     int      `xml:"PartNumber,omitempty"`
	ETag           string   `xml:"ETag,omitempty"`
	RequestID      string   `xml:"RequestId"`
}

func writeS3Error(w http.ResponseWriter, e s3Error) int {
	body, _ := xml.Marshal(e)
	status := query.StatusOf(e.Code)
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("x-amz-request-id", e.RequestID)
	w.WriteHeader(status)
	_, _ = w.Write(append([]byte(xml.Header), body...))
	return status
}

func s3Operation(r *http.Request) string {
	path := strings.Trim(r.URL.Path, "/")
	bucket, key, hasKey := strings.Cut(path, "/")
	hasKey = hasKey && key != ""
	q := r.URL.Query()
	switch {
	case bucket == "":
		return "ListBuckets"
	case r.Method == http.MethodPost && q.Has("delete"):
		return "DeleteObjects"
	case q.Get("uploadId") != "":
		upload := map[string]string{http.MethodGet: "ListParts", http.MethodPut: "UploadPart", http.MethodDelete: "AbortMultipartUpload", http.MethodPost: "CompleteMultipartUpload"}
		if op, ok := upload[r.Method]; ok {
			return op
		}
	case q.Has("uploads"):
		if r.Method == http.MethodPost {
			return "CreateMultipartUpload"
		}
		return "ListMultipartUploads"
	case s3SubresourceOp(r.Method, q, hasKey) != "":
		return s3SubresourceOp(r.Method, q, hasKey)
	case hasKey && r.Method == http.MethodPut && r.Header.Get("X-Amz-Copy-Source") != "":
		return "CopyObject"
	}
	obj := map[string]string{http.MethodGet: "GetObject", http.MethodPut: "PutObject", http.MethodHead: "HeadObject", http.MethodDelete: "DeleteObject", http.MethodPost: "PostObject"}
	bkt := map[string]string{http.MethodGet: "ListObjects", http.MethodPut: "CreateBucket", http.MethodHead: "HeadBucket", http.MethodDelete: "DeleteBucket", http.MethodPost: "PostObject"}
	m := bkt
	if hasKey {
		m = obj
	}
	if op, ok := m[r.Method]; ok {
		return op
	}
	return r.Method
}

// serveS3 answers an S3 request through gofakes3 once it is authenticated (S3 signs the payload's hash in a
// header, so the headers decide) and admitted: its size, its share of the stored bytes, its body read under
// the body limits.
func (s *Server) serveS3(w http.ResponseWriter, r *http.Request) {
	start := s.clock.Now()
	c := Call{Time: start, Service: ServiceS3, Operation: s3Operation(r), RequestID: s.newRequestID()}
	c.S3Bucket, _, _ = strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/") // requests are path-style
	finish := func(status int, code string) {
		c.HTTPStatus, c.ErrorCode, c.Outcome = status, code, OutcomeOK
		if status >= 300 {
			c.Outcome = OutcomeError
			if c.ErrorCode == "" {
				c.ErrorCode = http.StatusText(status)
			}
		}
		c.Latency = s.clock.Now().Sub(start)
		s.observe(c)
	}
	payload := r.Header.Get("X-Amz-Content-Sha256")
	if payload == "" {
		payload = "UNSIGNED-PAYLOAD"
	}
	scope, f := s.verifier.Verify(r, payload, true)
	if f == nil && scope.Region != s.opts.Region {
		f = &sigv4.Failure{Kind: sigv4.Malformed, Message: "the region '" + clip.String(scope.Region) + "' is wrong; expecting '" + s.opts.Region + "'"}
	}
	if f != nil {
		code, msg := s3AuthError(f)
		defer s.bodies.refuse(w, r)()
		finish(writeS3Error(w, s3Error{Code: code, Message: msg, RequestID: c.RequestID}), code)
		return
	}
	wr, refusal := s.admitS3(w, r, c.Operation)
	defer wr.done()
	if refusal != nil {
		defer s.bodies.refuse(w, r)()
		refusal.RequestID = c.RequestID
		finish(writeS3Error(w, *refusal), refusal.Code)
		return
	}
	if status, code, done := s.answerS3(w, r, c.Operation, c.S3Bucket, c.RequestID); done {
		finish(status, code)
		return
	}
	sw := &statusWriter{ResponseWriter: w, ranged: r.Method == http.MethodGet && r.Header.Get("Range") != ""}
	if c.Operation == "CreateMultipartUpload" {
		sw.keep = 16 << 10 // the new upload's ID follows its bucket and key (1,024 bytes, XML-escaped)
	}
	if isListV2(r, c.Operation) {
		buf := &s3Buffer{header: sw.Header()}
		s.s3.ServeHTTP(buf, r)
		buf.flush(sw)
	} else {
		s.s3.ServeHTTP(sw, r)
	}
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	wr.commit(sw.status, sw.head)
	if c.Operation == "DeleteBucket" && sw.status < 300 {
		s.s3tags.drop(c.S3Bucket)
	}
	finish(sw.status, "")
}

// s3AuthError maps an authentication failure to S3's error code and message.
func s3AuthError(f *sigv4.Failure) (code, msg string) {
	switch f.Kind {
	case sigv4.Missing:
		return "AccessDenied", f.Message
	case sigv4.Malformed:
		if f.Presigned {
			return "AuthorizationQueryParametersError", f.Message
		}
		return "AuthorizationHeaderMalformed", f.Message
	case sigv4.UnknownKey:
		return "InvalidAccessKeyId", f.Message
	case sigv4.Expired:
		if f.Presigned {
			return "AccessDenied", "Request has expired"
		}
		return "RequestTimeTooSkewed", "The difference between the request time and the current time is too large."
	}
	return "SignatureDoesNotMatch", f.Message
}

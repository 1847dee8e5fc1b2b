package fakeaws

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/s3quota"
)

// s3BodyLimit is the longest S3 request body read for objects of at most maxObject bytes: room for the
// framing of an aws-chunked upload (a signature line per chunk, under 1.2% at the smallest 8 KiB chunks).
func s3BodyLimit(maxObject int64) int64 { return maxObject + maxObject/16 + 4096 }

// S3 names longer than these cannot exist (AWS: keys up to 1,024 bytes; gofakes3 accepts bucket names up
// to 255), so a request naming one is refused without echoing it.
const (
	maxS3KeyBytes    = 1024
	maxS3BucketBytes = 255
)

// s3Write is one S3 request's claim on the server's memory while gofakes3 serves it: the body, read under
// the body limits, and a reservation of what it may add to the stored bytes.
type s3Write struct {
	s        *Server
	op       string
	uploadID string
	// partNumber is an UploadPart's part.
	partNumber string
	held       *heldBody
	reserved   int64
	declared   int64 // the object's or part's size as declared
}

// admitS3 checks an authenticated S3 request's names and sizes, reserves what it may store and reads its
// body, refusing it (with the error to send) when any of these does not fit. The caller calls done once
// the request is answered, refused or not.
func (s *Server) admitS3(rw http.ResponseWriter, r *http.Request, op string) (*s3Write, *s3Error) {
	w := &s3Write{s: s, op: op, uploadID: r.URL.Query().Get("uploadId"), partNumber: r.URL.Query().Get("partNumber")}
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	switch {
	case len(bucket) > maxS3BucketBytes:
		return w, &s3Error{Code: "InvalidBucketName", Message: "The specified bucket is not valid."}
	case len(key) > maxS3KeyBytes:
		return w, &s3Error{Code: "KeyTooLongError", Message: "Your key is too long"}
	}
	if e := w.checkSize(r); e != nil {
		return w, e
	}
	if e := w.reserve(r, bucket, key); e != nil {
		return w, e
	}
	if e := w.readBody(rw, r); e != nil {
		return w, e
	}
	if op == "CompleteMultipartUpload" {
		return w, w.checkParts()
	}
	return w, nil
}

// checkSize refuses an object or part larger than Options.MaxObjectBytes from what its headers declare,
// before anything is read, and one that a completed multipart upload would assemble.
func (w *s3Write) checkSize(r *http.Request) *s3Error {
	limit := w.s.opts.MaxObjectBytes
	switch w.op {
	case "PutObject", "UploadPart", "PostObject":
		w.declared = r.ContentLength
		if d, err := strconv.ParseInt(r.Header.Get("X-Amz-Decoded-Content-Length"), 10, 64); err == nil {
			w.declared = d // aws-chunked: Content-Length counts the framing
		}
	case "CompleteMultipartUpload":
		w.declared = w.s.s3quota.UploadBytes(w.uploadID) - s3quota.UploadOverhead
	default:
		return nil
	}
	if w.declared > limit {
		return entityTooLarge(w.declared, limit)
	}
	return nil
}

func entityTooLarge(proposed, limit int64) *s3Error {
	return &s3Error{Code: "EntityTooLarge", Message: "Your proposed upload exceeds the maximum allowed object size.", ProposedSize: proposed, MaxSizeAllowed: limit}
}

// reserve holds, in the storage bound, the most the request may add: an object's bytes, names and metadata
// (less what an object it replaces holds), a part, a bucket, an upload.
func (w *s3Write) reserve(r *http.Request, bucket, key string) *s3Error {
	q := w.s.s3quota
	var need int64
	switch w.op {
	case "PutObject", "PostObject":
		need = max(w.declared, 0) + int64(len(bucket)+len(key)) + s3quota.ObjectOverhead + s3quota.MaxMetadataCharge - q.Charged(bucket, key)
	case "CopyObject":
		srcBucket, srcKey := copySource(r.Header.Get("X-Amz-Copy-Source"))
		need = q.Charged(srcBucket, srcKey) + int64(len(bucket)+len(key)) + s3quota.MaxMetadataCharge - q.Charged(bucket, key)
	case "UploadPart":
		need = max(w.declared, 0) + s3quota.PartOverhead
	case "CreateMultipartUpload":
		need = s3quota.UploadOverhead
	case "CreateBucket":
		if !q.Reserve(s3quota.BucketOverhead) {
			return &s3Error{Code: "TooManyBuckets", Message: "You have attempted to create more buckets than allowed"}
		}
		w.reserved = s3quota.BucketOverhead
		return nil
	default:
		return nil
	}
	need = max(need, 0)
	if !q.Reserve(need) {
		return &s3Error{Code: "InsufficientCapacity", Message: fmt.Sprintf("The fake S3 holds %d of its %d bytes (Options.MaxStoredBytes); this write may need %d more.", q.Used(), q.Max(), need)}
	}
	w.reserved = need
	return nil
}

// copySource splits X-Amz-Copy-Source ("/bucket/key", the key escaped, maybe "?versionId=") as gofakes3 does.
func copySource(v string) (bucket, key string) {
	bucket, key, _ = strings.Cut(strings.TrimPrefix(v, "/"), "/")
	key, _, _ = strings.Cut(key, "?")
	if k, err := url.QueryUnescape(key); err == nil {
		key = k
	}
	return bucket, key
}

// readBody reads the request body under the body limits and hands gofakes3 the bytes instead of the
// connection, so that an upload is held only once it has arrived, and never beyond MaxObjectBytes.
func (w *s3Write) readBody(rw http.ResponseWriter, r *http.Request) *s3Error {
	held, err := w.s.bodies.read(rw, r, s3BodyLimit(w.s.opts.MaxObjectBytes))
	w.held = held
	var ne net.Error
	switch {
	case err == nil:
	case errors.Is(err, errBodyTooLarge):
		proposed := r.ContentLength
		if held != nil {
			proposed = max(proposed, int64(len(held.data)))
		}
		return entityTooLarge(proposed, w.s.opts.MaxObjectBytes)
	case errors.Is(err, errBodiesBusy):
		return &s3Error{Code: "SlowDown", Message: "Please reduce your request rate."}
	case errors.As(err, &ne) && ne.Timeout():
		return &s3Error{Code: "RequestTimeout", Message: "Your socket connection to the server was not read from or written to within the timeout period."}
	default:
		return &s3Error{Code: "IncompleteBody", Message: "You did not provide the number of bytes specified by the Content-Length HTTP header."}
	}
	if r.ContentLength != 0 {
		r.Body = io.NopCloser(bytes.NewReader(held.data))
	}
	return nil
}

// commit records what a write that gofakes3 answered with status left behind that the backend does not
// see: the parts and the life of multipart uploads.
func (w *s3Write) commit(status int, answer []byte) {
	if status < 200 || status > 299 {
		return
	}
	q := w.s.s3quota
	switch w.op {
	case "UploadPart":
		if part, err := strconv.Atoi(w.partNumber); err == nil {
			q.AddPart(w.uploadID, part, max(w.declared, 0))
		}
	case "CreateMultipartUpload":
		if id := xmlElement(answer, "UploadId"); id != "" {
			q.StartUpload(id)
		}
	case "CompleteMultipartUpload", "AbortMultipartUpload":
		q.EndUpload(w.uploadID)
	}
}

// done gives back the body and the reservation.
func (w *s3Write) done() {
	w.held.release()
	w.s.s3quota.Unreserve(w.reserved)
}

// xmlElement is the text of the first <name> element of a short XML answer.
func xmlElement(doc []byte, name string) string {
	_, rest, ok := bytes.Cut(doc, []byte("<"+name+">"))
	if !ok {
		return ""
	}
	v, _, ok := bytes.Cut(rest, []byte("</"+name+">"))
	if !ok {
		return ""
	}
	return string(v)
}

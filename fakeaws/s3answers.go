package fakeaws

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// minPartBytes is S3's smallest part of a multipart upload but the last (5 MiB).
const minPartBytes = 5 << 20

// minPart is the smallest part but the last: S3's 5 MiB, or a quarter of Options.MaxObjectBytes when that
// is not above 5 MiB, so that a multipart upload stays possible under a small object bound.
func (s *Server) minPart() int64 {
	if s.opts.MaxObjectBytes > minPartBytes {
		return minPartBytes
	}
	return s.opts.MaxObjectBytes / 4
}

// checkParts refuses a CompleteMultipartUpload naming a part, other than the last, under minPart
// (EntityTooSmall), from the sizes the parts were uploaded with.
func (w *s3Write) checkParts() *s3Error {
	least := w.s.minPart()
	var req struct {
		Parts []struct {
			PartNumber int    `xml:"PartNumber"`
			ETag       string `xml:"ETag"`
		} `xml:"Part"`
	}
	if w.held == nil || xml.Unmarshal(w.held.data, &req) != nil || len(req.Parts) == 0 {
		return nil // gofakes3 answers a malformed body
	}
	for _, p := range req.Parts[:len(req.Parts)-1] {
		if n, ok := w.s.s3quota.PartSize(w.uploadID, p.PartNumber); ok && n < least {
			return &s3Error{Code: "EntityTooSmall", Message: "Your proposed upload is smaller than the minimum allowed object size.",
				ProposedSize: n, MinSizeAllowed: least, PartNumber: p.PartNumber, ETag: p.ETag}
		}
	}
	return nil
}

// s3Unsupported are S3 subresources gofakes3 does not serve: it would take a request for one for another
// operation (a PUT ?policy for CreateBucket, a GET ?acl for GetObject), so they are answered NotImplemented,
// S3's answer for functionality it does not implement.
var s3Unsupported = []string{"accelerate", "acl", "analytics", "attributes", "cors", "encryption", "intelligent-tiering",
	"inventory", "legal-hold", "lifecycle", "logging", "metrics", "notification", "object-lock", "ownershipControls",
	"policy", "policyStatus", "publicAccessBlock", "replication", "requestPayment", "restore", "retention", "select",
	"torrent", "website"}

// s3SubresourceOp names a request for a subresource fakeaws answers itself: bucket tagging (served), object
// tagging and s3Unsupported (NotImplemented). "" for any other request.
func s3SubresourceOp(method string, q url.Values, hasKey bool) string {
	verb := map[string]string{http.MethodGet: "Get", http.MethodPut: "Put", http.MethodDelete: "Delete"}[method]
	switch {
	case q.Has("tagging") && verb != "" && hasKey:
		return verb + "ObjectTagging"
	case q.Has("tagging") && verb != "":
		return verb + "BucketTagging"
	}
	for k := range q {
		if slices.Contains(s3Unsupported, k) {
			return "Unsupported"
		}
	}
	return ""
}

// answerS3 answers, instead of gofakes3, what gofakes3 answers unlike S3: re-creating an owned bucket,
// bucket tagging, and subresources it does not serve. done is false for a request gofakes3 serves.
func (s *Server) answerS3(w http.ResponseWriter, r *http.Request, op, bucket, requestID string) (status int, code string, done bool) {
	fail := func(code, msg string) (int, string, bool) {
		return writeS3Error(w, s3Error{Code: code, Message: msg, RequestID: requestID}), code, true
	}
	switch op {
	case "CreateBucket":
		if ok, err := s.s3store.BucketExists(bucket); err != nil || !ok {
			return 0, "", false
		}
		if s.opts.Region != "us-east-1" {
			return fail("BucketAlreadyOwnedByYou", "Your previous request to create the named bucket succeeded and you already own it.")
		}
		// us-east-1 answers success and leaves the bucket as it is (S3's legacy behaviour there).
		w.Header().Set("Location", "/"+bucket)
		w.WriteHeader(http.StatusOK)
		return http.StatusOK, "", true
	case "PutBucketTagging", "GetBucketTagging", "DeleteBucketTagging":
		if ok, err := s.s3store.BucketExists(bucket); err != nil || !ok {
			return fail("NoSuchBucket", "The specified bucket does not exist")
		}
		return s.s3tags.serve(w, r, op, bucket, fail)
	case "GetObjectTagging", "PutObjectTagging", "DeleteObjectTagging", "Unsupported":
		return fail("NotImplemented", "A header or query you provided implies functionality that is not implemented.")
	}
	return 0, "", false
}

// s3Tag is one tag of a bucket.
type s3Tag struct {
	Key   string `xml:"Key"`
	Value string `xml:"Value"`
}

// s3Tagging is S3's tagging document.
type s3Tagging struct {
	XMLName xml.Name `xml:"Tagging"`
	Xmlns   string   `xml:"xmlns,attr,omitempty"`
	Tags    []s3Tag  `xml:"TagSet>Tag"`
}

// S3's limits on a bucket's tags.
const (
	maxS3BucketTags = 50
	maxS3TagKey     = 128
	maxS3TagValue   = 256
	s3TagOverhead   = 64 // the map entry and string headers, charged to the storage bound
)

// s3Tags keeps the tags of buckets, charged to the storage bound.
type s3Tags struct {
	s    *Server
	mu   sync.Mutex
	tags map[string][]s3Tag
}

func s3TagBytes(tags []s3Tag) int64 {
	n := int64(0)
	for _, t := range tags {
		n += int64(s3TagOverhead + len(t.Key) + len(t.Value))
	}
	return n
}

type s3Fail func(code, msg string) (int, string, bool)

func (t *s3Tags) serve(w http.ResponseWriter, r *http.Request, op, bucket string, fail s3Fail) (int, string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch op {
	case "GetBucketTagging":
		tags := t.tags[bucket]
		if len(tags) == 0 {
			return fail("NoSuchTagSet", "The TagSet does not exist")
		}
		body, _ := xml.Marshal(s3Tagging{Xmlns: "http://s3.amazonaws.com/doc/2006-03-01/", Tags: tags})
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(append([]byte(xml.Header), body...))
		return http.StatusOK, "", true
	case "DeleteBucketTagging":
		t.set(bucket, nil)
	default:
		var doc s3Tagging
		body, _ := io.ReadAll(r.Body)
		if err := xml.Unmarshal(body, &doc); err != nil {
			return fail("MalformedXML", "The XML you provided was not well-formed or did not validate against our published schema.")
		}
		if msg := s3TagsProblem(doc.Tags); msg != "" {
			return fail("InvalidTag", msg)
		}
		if !t.set(bucket, doc.Tags) {
			return fail("InsufficientCapacity", "The fake S3 has no room for these tags (Options.MaxStoredBytes).")
		}
	}
	w.WriteHeader(http.StatusNoContent)
	return http.StatusNoContent, "", true
}

// set replaces a bucket's tags (none: forgets them); false when the storage bound has no room.
func (t *s3Tags) set(bucket string, tags []s3Tag) bool {
	old, grow := s3TagBytes(t.tags[bucket]), s3TagBytes(tags)
	if !t.s.s3quota.Hold(grow) {
		return false
	}
	t.s.s3quota.Release(old)
	if len(tags) == 0 {
		delete(t.tags, bucket)
		return true
	}
	t.tags[bucket] = slices.Clone(tags)
	return true
}

// drop forgets the tags of a deleted bucket.
func (t *s3Tags) drop(bucket string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.set(bucket, nil)
}

func s3TagsProblem(tags []s3Tag) string {
	if len(tags) > maxS3BucketTags {
		return "Bucket tag count cannot be greater than " + strconv.Itoa(maxS3BucketTags)
	}
	seen := map[string]bool{}
	for _, t := range tags {
		switch {
		case t.Key == "" || len(t.Key) > maxS3TagKey:
			return "The TagKey you have provided is invalid"
		case len(t.Value) > maxS3TagValue:
			return "The TagValue you have provided is invalid"
		case seen[t.Key]:
			return "Cannot provide multiple Tags with the same key"
		}
		seen[t.Key] = true
	}
	return ""
}

// s3Buffer holds gofakes3's answer to a ListObjectsV2 to add the KeyCount it leaves out of an empty
// listing (its field is omitempty; S3 always sends it).
type s3Buffer struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *s3Buffer) Header() http.Header { return b.header }
func (b *s3Buffer) WriteHeader(code int) {
	if b.status == 0 {
		b.status = code
	}
}
func (b *s3Buffer) Write(p []byte) (int, error) { b.WriteHeader(http.StatusOK); return b.body.Write(p) }

// flush writes the held answer to w with KeyCount added when it lacks one.
func (b *s3Buffer) flush(w http.ResponseWriter) {
	body := b.body.Bytes()
	if b.status == http.StatusOK && !bytes.Contains(body, []byte("<KeyCount>")) {
		body = bytes.Replace(body, []byte("</ListBucketResult>"), []byte("<KeyCount>0</KeyCount></ListBucketResult>"), 1)
	}
	for k, v := range b.header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(b.status)
	_, _ = w.Write(body)
}

// isListV2 reports whether r is a ListObjectsV2.
func isListV2(r *http.Request, op string) bool {
	return op == "ListObjects" && r.URL.Query().Get("list-type") == "2"
}

// stripChecksums removes the whole object's checksum headers from the answer to a ranged GET: the body is
// part of the object, and S3 sends no checksum of the whole then.
func stripChecksums(h http.Header) {
	for k := range h {
		if strings.HasPrefix(k, "X-Amz-Checksum-") {
			delete(h, k)
		}
	}
}

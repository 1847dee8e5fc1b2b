package fakeaws_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/restartsim/restartsim/fakeaws"
)

// countingZeros streams n zero bytes without holding them, counting what has been read since the last
// Seek (an SDK reads a signed body once to hash it, then rewinds and sends it).
type countingZeros struct {
	size, off int64
	sent      atomic.Int64
}

func (z *countingZeros) Read(p []byte) (int, error) {
	if z.off >= z.size {
		return 0, io.EOF
	}
	n := min(int64(len(p)), z.size-z.off)
	clear(p[:n])
	z.off += n
	z.sent.Add(n)
	return int(n), nil
}

func (z *countingZeros) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
		z.off = offset
	case io.SeekCurrent:
		z.off += offset
	case io.SeekEnd:
		z.off = z.size + offset
	}
	z.sent.Store(0)
	return z.off, nil
}

// http11 gives requests the protocol version aws-sdk-go-v2 leaves at 0.0: net/http honours the S3 client's
// Expect: 100-continue only on HTTP/1.1 requests, and otherwise sends the body at once.
type http11 struct{ http.RoundTripper }

func (t http11) RoundTrip(r *http.Request) (*http.Response, error) {
	r.Proto, r.ProtoMajor, r.ProtoMinor = "HTTP/1.1", 1, 1
	return t.RoundTripper.RoundTrip(r)
}

// newS3 is an S3 client of e that waits for the server's answer to Expect: 100-continue before it sends a
// body (as long as it takes: a loaded test machine can exceed the SDK's 1 s), so that a body the server
// refuses is never sent.
func newS3(e *env, unsignedPayload bool) *s3.Client {
	cfg := e.cfg.Copy()
	transport := awshttp.NewBuildableClient().WithTransportOptions(func(tr *http.Transport) { tr.ExpectContinueTimeout = time.Minute }).GetTransport()
	cfg.HTTPClient = &http.Client{Transport: http11{transport}}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.UsePathStyle = true
		if unsignedPayload {
			o.APIOptions = append(o.APIOptions, v4.SwapComputePayloadSHA256ForUnsignedPayloadMiddleware)
		}
	})
}

func s3ErrorOf(t *testing.T, err error) (code string, status int) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("not an API error: %v", err)
	}
	return ae.ErrorCode(), httpStatus(err)
}

// TestS3ObjectTooLarge: an object over MaxObjectBytes is EntityTooLarge (400), refused from its declared
// length: a streamed 100 MB UNSIGNED-PAYLOAD upload is neither read nor buffered by the server.
func TestS3ObjectTooLarge(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxObjectBytes: 1 << 20})
	for _, unsigned := range []bool{false, true} {
		t.Run(fmt.Sprintf("unsigned payload %v", unsigned), func(t *testing.T) {
			client := newS3(e, unsigned)
			bucket := aws.String(fmt.Sprintf("big-%v", unsigned))
			must[*s3.CreateBucketOutput](t)(client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bucket}))
			body := &countingZeros{size: 100e6}
			var stream io.Reader = body
			if unsigned {
				stream = struct{ io.Reader }{body} // not seekable: streamed as it is read
			}
			_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String("big"), Body: stream, ContentLength: aws.Int64(100e6)})
			if code, status := s3ErrorOf(t, err); code != "EntityTooLarge" || status != http.StatusBadRequest {
				t.Fatalf("100 MB object: %s %d (%v), want EntityTooLarge 400", code, status, err)
			}
			if sent := body.sent.Load(); sent != 0 {
				t.Fatalf("the client sent %d bytes: the server asked for the body it refuses", sent)
			}
			if _, held, _ := e.srv.BodiesInFlight(); held != 0 {
				t.Fatalf("%d body bytes still held", held)
			}
			// At the limit it is stored.
			must[*s3.PutObjectOutput](t)(client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String("fits"),
				Body: bytes.NewReader(make([]byte, 1<<20)), ContentLength: aws.Int64(1 << 20)}))
		})
	}
}

// TestS3ChunkedBodyStopsAtTheLimit: a body without Content-Length (chunked transfer encoding) is read only up
// to the object limit, then refused.
func TestS3ChunkedBodyStopsAtTheLimit(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxObjectBytes: 1 << 20})
	must[*s3.CreateBucketOutput](t)(newS3(e, false).CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("bkt")}))
	body := &countingZeros{size: 100e6}
	req, err := http.NewRequest(http.MethodPut, e.http.URL+"/bkt/streamed", io.NopCloser(body)) // no length: chunked
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Amz-Content-Sha256", "UNSIGNED-PAYLOAD")
	if err := v4.NewSigner().SignHTTP(ctx, aws.Credentials{AccessKeyID: testKey, SecretAccessKey: testSecret}, req, "UNSIGNED-PAYLOAD", "s3", "us-west-2", time.Now()); err != nil {
		t.Fatal(err)
	}
	resp, err := e.http.Client().Do(req)
	if err == nil {
		out := readAll(t, resp)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, "<Code>EntityTooLarge</Code>") {
			t.Fatalf("a chunked 100 MB upload: %d %s", resp.StatusCode, out)
		}
	} // else the server closed the connection while the client was still sending: refused too
	if read := body.sent.Load(); read >= 100e6 {
		t.Fatalf("the server read all %d bytes", read)
	}
	waitFor(t, "the body's memory to be given back", func() bool { _, held, _ := e.srv.BodiesInFlight(); return held == 0 })
}

// TestS3StoredBytesBounded: S3 holds at most MaxStoredBytes; a write beyond is InsufficientCapacity (507)
// until something is deleted. Overwriting an object does not count it twice, copies and multipart parts
// count, an aborted upload gives its parts back.
func TestS3StoredBytesBounded(t *testing.T) {
	const max = 1 << 20
	e := newEnv(t, fakeaws.Options{MaxObjectBytes: 256 << 10, MaxStoredBytes: max})
	client := newS3(e, true)
	bucket := aws.String("full")
	must[*s3.CreateBucketOutput](t)(client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bucket}))
	put := func(key string) error {
		_, err := client.PutObject(ctx, &s3.PutObjectInput{Bucket: bucket, Key: aws.String(key),
			Body: bytes.NewReader(make([]byte, 250_000)), ContentLength: aws.Int64(250_000)})
		return err
	}
	stored := 0
	var err error
	for ; stored < 10; stored++ {
		if err = put(fmt.Sprintf("obj-%d", stored)); err != nil {
			break
		}
	}
	if code, status := s3ErrorOf(t, err); code != "InsufficientCapacity" || status != http.StatusInsufficientStorage || stored != 4 {
		t.Fatalf("after %d objects of 250 kB: %s %d (%v), want the 5th refused with InsufficientCapacity 507", stored, code, status, err)
	}
	if used := e.srv.S3StoredBytes(); used > max {
		t.Fatalf("S3 holds %d bytes, over %d", used, max)
	}
	for range 10 {
		if err := put("obj-0"); err != nil {
			t.Fatalf("overwriting an object: %v", err)
		}
	}
	_, err = client.CopyObject(ctx, &s3.CopyObjectInput{Bucket: bucket, Key: aws.String("copy"), CopySource: aws.String("full/obj-0")})
	if code, _ := s3ErrorOf(t, err); code != "InsufficientCapacity" {
		t.Fatalf("a copy beyond the bound: %v", err)
	}
	must[*s3.DeleteObjectOutput](t)(client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bucket, Key: aws.String("obj-1")}))
	must[*s3.CopyObjectOutput](t)(client.CopyObject(ctx, &s3.CopyObjectInput{Bucket: bucket, Key: aws.String("copy"), CopySource: aws.String("full/obj-0")}))
	must[*s3.DeleteObjectOutput](t)(client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: bucket, Key: aws.String("copy")}))

	// Multipart: parts count until the upload ends.
	up := must[*s3.CreateMultipartUploadOutput](t)(client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: bucket, Key: aws.String("mp")}))
	part := func(n int32) error {
		_, err := client.UploadPart(ctx, &s3.UploadPartInput{Bucket: bucket, Key: aws.String("mp"), UploadId: up.UploadId, PartNumber: aws.Int32(n),
			Body: bytes.NewReader(make([]byte, 150<<10)), ContentLength: aws.Int64(150 << 10)})
		return err
	}
	if err := part(1); err != nil {
		t.Fatal(err)
	}
	if code, _ := s3ErrorOf(t, part(2)); code != "InsufficientCapacity" {
		t.Fatalf("a part beyond the bound: %s", code)
	}
	must[*s3.AbortMultipartUploadOutput](t)(client.AbortMultipartUpload(ctx, &s3.AbortMultipartUploadInput{Bucket: bucket, Key: aws.String("mp"), UploadId: up.UploadId}))
	if err := put("obj-1"); err != nil {
		t.Fatalf("after the upload was aborted: %v", err)
	}
	if used := e.srv.S3StoredBytes(); used > max {
		t.Fatalf("S3 holds %d bytes, over %d", used, max)
	}
	// Emptied and deleted, the bucket leaves nothing counted.
	var ids []s3types.ObjectIdentifier
	for i := range 4 {
		ids = append(ids, s3types.ObjectIdentifier{Key: aws.String(fmt.Sprintf("obj-%d", i))})
	}
	must[*s3.DeleteObjectsOutput](t)(client.DeleteObjects(ctx, &s3.DeleteObjectsInput{Bucket: bucket, Delete: &s3types.Delete{Objects: ids}}))
	must[*s3.DeleteBucketOutput](t)(client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: bucket}))
	if used := e.srv.S3StoredBytes(); used != 0 {
		t.Fatalf("an empty S3 counts %d bytes", used)
	}
}

// TestS3MultipartCompletes: a multipart upload within the bounds completes as before, and its parts are
// counted once the object is.
func TestS3MultipartCompletes(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxObjectBytes: 256 << 10, MaxStoredBytes: 1 << 20})
	client := newS3(e, false)
	bucket, key := aws.String("multi"), aws.String("whole")
	up, parts := uploadParts(t, client, bucket, key, 100<<10)
	before := e.srv.S3StoredBytes()
	must[*s3.CompleteMultipartUploadOutput](t)(client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: bucket, Key: key, UploadId: up.UploadId,
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: parts}}))
	got := must[*s3.GetObjectOutput](t)(client.GetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: key}))
	b, _ := io.ReadAll(got.Body)
	got.Body.Close()
	if len(b) != 200<<10 || b[0] != 1 || b[len(b)-1] != 2 {
		t.Fatalf("assembled %d bytes", len(b))
	}
	if after := e.srv.S3StoredBytes(); after > before+4096 {
		t.Fatalf("stored bytes went from %d to %d: the parts are still counted beside the object", before, after)
	}
}

// TestS3SmallPartUnderSmallObjectBound: under an object bound of 5 MiB or less, the smallest part but the
// last is a quarter of it (here 64 KiB), so a part of 10 KiB before the last is EntityTooSmall with the
// part's number and size.
func TestS3SmallPartUnderSmallObjectBound(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxObjectBytes: 256 << 10, MaxStoredBytes: 1 << 20})
	client := newS3(e, false)
	bucket, key := aws.String("multi"), aws.String("small")
	up, parts := uploadParts(t, client, bucket, key, 10<<10)
	_, err := client.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: bucket, Key: key, UploadId: up.UploadId,
		MultipartUpload: &s3types.CompletedMultipartUpload{Parts: parts}})
	if code, status := s3ErrorOf(t, err); code != "EntityTooSmall" || status != 400 {
		t.Fatalf("completing parts of 10 KiB: %s %d, want EntityTooSmall 400", code, status)
	}
	_, err = client.GetObject(ctx, &s3.GetObjectInput{Bucket: bucket, Key: key})
	wantCode(t, err, "NoSuchKey")
}

// uploadParts creates bucket and a multipart upload of key, and uploads two parts of size bytes (of 1s,
// then 2s).
func uploadParts(t *testing.T, client *s3.Client, bucket, key *string, size int64) (*s3.CreateMultipartUploadOutput, []s3types.CompletedPart) {
	t.Helper()
	must[*s3.CreateBucketOutput](t)(client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: bucket}))
	up := must[*s3.CreateMultipartUploadOutput](t)(client.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: bucket, Key: key}))
	var parts []s3types.CompletedPart
	for n := int32(1); n <= 2; n++ {
		out := must[*s3.UploadPartOutput](t)(client.UploadPart(ctx, &s3.UploadPartInput{Bucket: bucket, Key: key, UploadId: up.UploadId, PartNumber: aws.Int32(n),
			Body: bytes.NewReader(bytes.Repeat([]byte{byte(n)}, int(size))), ContentLength: aws.Int64(size)}))
		parts = append(parts, s3types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(n)})
	}
	return up, parts
}

package conformance_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Where S3's answers are documented.
const (
	s3CreateBucket = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_CreateBucket.html"
	s3GetObject    = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObject.html"
	s3PutObject    = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html"
	s3Complete     = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_CompleteMultipartUpload.html"
	s3Limits       = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/qfacts.html"
	s3ListV2       = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html"
	s3BucketTags   = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutBucketTagging.html"
	s3GetBucketTag = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetBucketTagging.html"
	s3ObjectTags   = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_GetObjectTagging.html"
	s3DeleteBucket = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteBucket.html"
	s3DeleteObject = "https://docs.aws.amazon.com/AmazonS3/latest/API/API_DeleteObject.html"
	s3Errors       = "https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html"
)

// The fixture every case starts from: bucket "full" with object "digits" (0123456789, uploaded with a
// CRC32 checksum) and an empty bucket "empty".
const (
	s3Full   = "full"
	s3Empty  = "empty"
	s3Digits = "0123456789"
)

type s3Case struct {
	name   string
	op     string // the S3 operation
	call   func(ctx context.Context, c *s3.Client) (any, error)
	want   string              // the documented answer: "" for success, else the error code
	check  func(out any) error // what a success must hold, when more than success
	source string
}

var s3Cases = []s3Case{
	{"create: a new bucket", "CreateBucket", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("fresh"), CreateBucketConfiguration: s3Location()})
	}, "", nil, s3CreateBucket},
	{"create: a bucket you own, outside us-east-1", "CreateBucket", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s3Full), CreateBucketConfiguration: s3Location()})
	}, "BucketAlreadyOwnedByYou", nil, s3Errors},
	{"create: an invalid name", "CreateBucket", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("Bad_Name"), CreateBucketConfiguration: s3Location()})
	}, "InvalidBucketName", nil, s3CreateBucket},
	{"get: the whole object", "GetObject", func(ctx context.Context, c *s3.Client) (any, error) {
		return s3Read(c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s3Full), Key: aws.String("digits"), ChecksumMode: s3types.ChecksumModeEnabled}))
	}, "", s3Body(s3Digits), s3GetObject},
	{"get: a range, checksum mode on", "GetObject", func(ctx context.Context, c *s3.Client) (any, error) {
		return s3Read(c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s3Full), Key: aws.String("digits"), Range: aws.String("bytes=2-5"), ChecksumMode: s3types.ChecksumModeEnabled}))
	}, "", s3Body("2345"), s3GetObject},
	{"get: a missing key", "GetObject", func(ctx context.Context, c *s3.Client) (any, error) {
		return s3Read(c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s3Full), Key: aws.String("nothing")}))
	}, "NoSuchKey", nil, s3GetObject},
	{"put: to a missing bucket", "PutObject", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("no-such-bucket"), Key: aws.String("k"), Body: strings.NewReader("x")})
	}, "NoSuchBucket", nil, s3PutObject},
	{"multipart: a 1-byte part before the last", "CompleteMultipartUpload", func(ctx context.Context, c *s3.Client) (any, error) {
		return s3Multipart(ctx, c, "small", 1, 1)
	}, "EntityTooSmall", nil, s3Complete},
	{"multipart: a 5 MiB part, then 1 byte", "CompleteMultipartUpload", func(ctx context.Context, c *s3.Client) (any, error) {
		return s3Multipart(ctx, c, "large", 5<<20, 1)
	}, "", nil, s3Limits},
	{"list v2: an empty bucket counts 0 keys", "ListObjectsV2", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(s3Empty)})
	}, "", s3KeyCount(0), s3ListV2},
	{"list v2: a bucket of one key", "ListObjectsV2", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String(s3Full), Prefix: aws.String("dig")})
	}, "", s3KeyCount(1), s3ListV2},
	{"bucket tags: put", "PutBucketTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String(s3Full),
			Tagging: &s3types.Tagging{TagSet: []s3types.Tag{{Key: aws.String("team"), Value: aws.String("dns")}}}})
	}, "", nil, s3BucketTags},
	{"bucket tags: get them back", "GetBucketTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String(s3Full)})
	}, "", s3BucketTag("team", "dns"), s3GetBucketTag},
	{"bucket tags: none set", "GetBucketTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String(s3Empty)})
	}, "NoSuchTagSet", nil, s3GetBucketTag},
	// Object tags are not kept: S3's answer for functionality it does not implement, rather than the
	// object's body (GET) or the object overwritten by the tagging document (PUT) as gofakes3 would.
	{"object tags: get, not implemented", "GetObjectTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.GetObjectTagging(ctx, &s3.GetObjectTaggingInput{Bucket: aws.String(s3Full), Key: aws.String("digits")})
	}, "NotImplemented", nil, s3Errors},
	{"object tags: put, not implemented", "PutObjectTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.PutObjectTagging(ctx, &s3.PutObjectTaggingInput{Bucket: aws.String(s3Full), Key: aws.String("digits"),
			Tagging: &s3types.Tagging{TagSet: []s3types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}})
	}, "NotImplemented", nil, s3ObjectTags},
	{"object: unchanged by the refused tagging", "GetObject", func(ctx context.Context, c *s3.Client) (any, error) {
		return s3Read(c.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s3Full), Key: aws.String("digits")}))
	}, "", s3Body(s3Digits), s3GetObject},
	{"bucket policy: not implemented", "PutBucketPolicy", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.PutBucketPolicy(ctx, &s3.PutBucketPolicyInput{Bucket: aws.String(s3Full), Policy: aws.String("{}")})
	}, "NotImplemented", nil, s3Errors},
	{"bucket tags: delete", "DeleteBucketTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.DeleteBucketTagging(ctx, &s3.DeleteBucketTaggingInput{Bucket: aws.String(s3Full)})
	}, "", nil, s3BucketTags},
	{"bucket tags: gone once deleted", "GetBucketTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.GetBucketTagging(ctx, &s3.GetBucketTaggingInput{Bucket: aws.String(s3Full)})
	}, "NoSuchTagSet", nil, s3GetBucketTag},
	{"bucket tags: a key of 129 characters", "PutBucketTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String(s3Full),
			Tagging: &s3types.Tagging{TagSet: []s3types.Tag{{Key: aws.String(strings.Repeat("k", 129)), Value: aws.String("v")}}}})
	}, "InvalidTag", nil, s3BucketTags},
	{"bucket tags: of a missing bucket", "PutBucketTagging", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.PutBucketTagging(ctx, &s3.PutBucketTaggingInput{Bucket: aws.String("no-such-bucket"),
			Tagging: &s3types.Tagging{TagSet: []s3types.Tag{{Key: aws.String("k"), Value: aws.String("v")}}}})
	}, "NoSuchBucket", nil, s3BucketTags},
	{"delete: a missing key succeeds", "DeleteObject", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s3Full), Key: aws.String("never-there")})
	}, "", nil, s3DeleteObject},
	{"delete: a bucket that holds objects", "DeleteBucket", func(ctx context.Context, c *s3.Client) (any, error) {
		return c.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(s3Full)})
	}, "BucketNotEmpty", nil, s3DeleteBucket},
}

func s3Location() *s3types.CreateBucketConfiguration {
	return &s3types.CreateBucketConfiguration{LocationConstraint: s3types.BucketLocationConstraintUsWest2}
}

// s3Read reads a GetObject answer's body, where the SDK validates its checksum.
func s3Read(out *s3.GetObjectOutput, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	defer out.Body.Close()
	return io.ReadAll(out.Body)
}

func s3Body(want string) func(any) error {
	return func(out any) error {
		if got := string(out.([]byte)); got != want {
			return fmt.Errorf("body %q, want %q", got, want)
		}
		return nil
	}
}

func s3KeyCount(want int32) func(any) error {
	return func(out any) error {
		o := out.(*s3.ListObjectsV2Output)
		if o.KeyCount == nil || *o.KeyCount != want {
			return fmt.Errorf("KeyCount %v, want %d", o.KeyCount, want)
		}
		return nil
	}
}

func s3BucketTag(key, value string) func(any) error {
	return func(out any) error {
		tags := out.(*s3.GetBucketTaggingOutput).TagSet
		if len(tags) != 1 || aws.ToString(tags[0].Key) != key || aws.ToString(tags[0].Value) != value {
			return fmt.Errorf("tags %+v, want %s=%s", tags, key, value)
		}
		return nil
	}
}

// s3Multipart uploads parts of the given sizes to bucket "full" and completes the upload.
func s3Multipart(ctx context.Context, c *s3.Client, key string, sizes ...int) (any, error) {
	up, err := c.CreateMultipartUpload(ctx, &s3.CreateMultipartUploadInput{Bucket: aws.String(s3Full), Key: aws.String(key)})
	if err != nil {
		return nil, err
	}
	var parts []s3types.CompletedPart
	for i, n := range sizes {
		num := aws.Int32(int32(i + 1))
		p, err := c.UploadPart(ctx, &s3.UploadPartInput{Bucket: aws.String(s3Full), Key: aws.String(key), UploadId: up.UploadId,
			PartNumber: num, Body: bytes.NewReader(bytes.Repeat([]byte("p"), n))})
		if err != nil {
			return nil, err
		}
		parts = append(parts, s3types.CompletedPart{ETag: p.ETag, PartNumber: num})
	}
	return c.CompleteMultipartUpload(ctx, &s3.CompleteMultipartUploadInput{Bucket: aws.String(s3Full), Key: aws.String(key),
		UploadId: up.UploadId, MultipartUpload: &s3types.CompletedMultipartUpload{Parts: parts}})
}

// s3Fixture makes the buckets and object every case starts from.
func s3Fixture(t *testing.T, c *s3.Client) {
	ctx := r53s3Ctx(t)
	for _, b := range []string{s3Full, s3Empty} {
		if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b), CreateBucketConfiguration: s3Location()}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(s3Full), Key: aws.String("digits"),
		Body: strings.NewReader(s3Digits), ChecksumAlgorithm: s3types.ChecksumAlgorithmCrc32}); err != nil {
		t.Fatal(err)
	}
}

// TestS3Conformance runs every case, in order, through the real SDK against a started fakeaws in us-west-2.
func TestS3Conformance(t *testing.T) {
	c := s3Client(t, "us-west-2")
	s3Fixture(t, c)
	ctx := r53s3Ctx(t)
	for _, tc := range s3Cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := tc.call(ctx, c)
			if got := r53s3Code(err); got != tc.want {
				t.Fatalf("%s: answer %q (%.300v), documented %q (%s)", tc.op, got, err, tc.want, tc.source)
			}
			if err == nil && tc.check != nil {
				if err := tc.check(out); err != nil {
					t.Fatalf("%s: %v (%s)", tc.op, err, tc.source)
				}
			}
		})
	}
}

// TestS3RecreateOwnedBucketUSEast1: in us-east-1, creating a bucket you already own succeeds (200) and
// leaves its objects; other regions answer BucketAlreadyOwnedByYou (TestS3Conformance).
func TestS3RecreateOwnedBucketUSEast1(t *testing.T) {
	c := s3Client(t, "us-east-1")
	ctx := r53s3Ctx(t)
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("mine")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("mine"), Key: aws.String("k"), Body: strings.NewReader("v")}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("mine")}); err != nil {
		t.Fatalf("CreateBucket of an owned bucket in us-east-1: %v, documented success (%s)", err, s3Errors)
	}
	out, err := c.ListObjectsV2(ctx, &s3.ListObjectsV2Input{Bucket: aws.String("mine")})
	if err != nil || aws.ToInt32(out.KeyCount) != 1 {
		t.Fatalf("after re-creating: %v keys, err %v; want the object kept", out, err)
	}
}

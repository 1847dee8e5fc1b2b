package gate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"

	"github.com/restartsim/restartsim/internal/outfile"
	"github.com/restartsim/restartsim/results"
)

// ErrNoBaseline is returned by Store.Load when the baseline does not exist yet.
var ErrNoBaseline = errors.New("baseline does not exist")

// Store holds a baseline: a results.json in a file or an S3 object.
type Store interface {
	// Load returns the baseline, or an error wrapping ErrNoBaseline.
	Load(ctx context.Context) (*results.Results, error)
	// Save replaces the baseline with a slim copy of r (see Slim).
	Save(ctx context.Context, r *results.Results) error
	// String is the location, for messages.
	String() string
}

// S3Options configure the S3 client for s3:// baselines. Anything left empty comes from the
// usual AWS environment (AWS_REGION, AWS_PROFILE, AWS_ACCESS_KEY_ID, AWS_ENDPOINT_URL_S3, ...).
type S3Options struct {
	// Endpoint overrides the S3 endpoint (a gofakes3 or MinIO URL). Default: the AWS endpoint.
	Endpoint string
	// Region defaults to the environment's region, else us-east-1.
	Region string
	// Profile selects a shared-config profile. Default: the environment's.
	Profile string
	// PathStyle addresses buckets as https://host/bucket/key. Default: true when an endpoint is
	// set here or in AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, as S3-compatible servers expect.
	PathStyle *bool
	// Credentials override the environment's credentials (tests).
	Credentials aws.CredentialsProvider
}

// OpenStore returns the store for a location: "s3://bucket/key" or a file path.
func OpenStore(ctx context.Context, location string, opts S3Options) (Store, error) {
	rest, ok := strings.CutPrefix(location, "s3://")
	if !ok {
		if location == "" {
			return nil, errors.New("baseline location is empty")
		}
		return fileStore(location), nil
	}
	bucket, key, _ := strings.Cut(rest, "/")
	if bucket == "" || key == "" || strings.HasSuffix(key, "/") {
		return nil, fmt.Errorf("baseline %q: want s3://bucket/key", location)
	}
	client, err := newS3Client(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", location, err)
	}
	return &s3Store{client: client, bucket: bucket, key: key}, nil
}

func newS3Client(ctx context.Context, o S3Options) (*s3.Client, error) {
	var loaders []func(*config.LoadOptions) error
	if o.Region != "" {
		loaders = append(loaders, config.WithRegion(o.Region))
	}
	if o.Profile != "" {
		loaders = append(loaders, config.WithSharedConfigProfile(o.Profile))
	}
	if o.Credentials != nil {
		loaders = append(loaders, config.WithCredentialsProvider(o.Credentials))
	}
	cfg, err := config.LoadDefaultConfig(ctx, loaders...)
	if err != nil {
		return nil, fmt.Errorf("load AWS config: %w", err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	pathStyle := o.Endpoint != "" || os.Getenv("AWS_ENDPOINT_URL_S3") != "" || os.Getenv("AWS_ENDPOINT_URL") != ""
	if o.PathStyle != nil {
		pathStyle = *o.PathStyle
	}
	return s3.NewFromConfig(cfg, func(so *s3.Options) {
		if o.Endpoint != "" {
			so.BaseEndpoint = aws.String(o.Endpoint)
		}
		so.UsePathStyle = pathStyle
		if pathStyle {
			// S3-compatible servers often lack the newer default checksums.
			so.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			so.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	}), nil
}

// Slim returns a copy of r fit for a baseline: summaries, invariants, thresholds and gate
// rules, without the per-change records and events that only reports need.
func Slim(r *results.Results) *results.Results {
	out := *r
	out.SchemaVersion = results.SchemaVersion
	out.Strategies = make([]results.Strategy, len(r.Strategies))
	for i, s := range r.Strategies {
		s.Changes, s.Events = nil, nil
		out.Strategies[i] = s
	}
	return &out
}

func encode(r *results.Results) ([]byte, error) {
	data, err := json.MarshalIndent(Slim(r), "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

type fileStore string

func (f fileStore) String() string { return string(f) }

func (f fileStore) Load(context.Context) (*results.Results, error) {
	r, err := results.Load(string(f))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("baseline %s: %w", f, ErrNoBaseline)
	}
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return r, nil
}

func (f fileStore) Save(_ context.Context, r *results.Results) error {
	data, err := encode(r)
	if err != nil {
		return err
	}
	if err := outfile.MkdirAll(filepath.Dir(string(f))); err != nil {
		return err
	}
	return outfile.WriteBytes(outfile.Disk{}, string(f), data)
}

type s3Store struct {
	client      *s3.Client
	bucket, key string
}

func (s *s3Store) String() string { return "s3://" + s.bucket + "/" + s.key }

func (s *s3Store) Load(ctx context.Context) (*results.Results, error) {
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &s.key})
	if err != nil {
		if isNotFound(err) {
			return nil, fmt.Errorf("baseline %s: %w", s, ErrNoBaseline)
		}
		return nil, fmt.Errorf("baseline %s: %w", s, err)
	}
	defer out.Body.Close()
	data, err := results.ReadAll(out.Body, s.String())
	if err != nil {
		return nil, fmt.Errorf("baseline %w", err)
	}
	return results.Decode(data, s.String())
}

func (s *s3Store) Save(ctx context.Context, r *results.Results) error {
	data, err := encode(r)
	if err != nil {
		return err
	}
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{Bucket: &s.bucket, Key: &s.key,
		Body: bytes.NewReader(data), ContentType: aws.String("application/json")})
	if err != nil {
		return fmt.Errorf("baseline %s: %w", s, err)
	}
	return nil
}

func isNotFound(err error) bool {
	var nsk *types.NoSuchKey
	var nf *types.NotFound
	if errors.As(err, &nsk) || errors.As(err, &nf) {
		return true
	}
	var api smithy.APIError
	return errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound")
}

package gate_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/restartsim/restartsim/reports/gate"
	"github.com/restartsim/restartsim/results"
)

// newFakeS3 serves gofakes3 over HTTP with one bucket, "baselines".
func newFakeS3(t *testing.T) gate.S3Options {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket("baselines"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return gate.S3Options{Endpoint: srv.URL, Region: "eu-west-1",
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
}

func TestStores(t *testing.T) {
	ctx := context.Background()
	s3opts := newFakeS3(t)
	for _, loc := range []string{
		filepath.Join(t.TempDir(), "baselines", "ci-gate.json"),
		"s3://baselines/restartsim/ci-gate.json",
	} {
		t.Run(loc, func(t *testing.T) {
			store, err := gate.OpenStore(ctx, loc, s3opts)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := store.Load(ctx); !errors.Is(err, gate.ErrNoBaseline) {
				t.Fatalf("load before save: %v, want ErrNoBaseline", err)
			}
			cur := load(t)
			if err := store.Save(ctx, cur); err != nil {
				t.Fatal(err)
			}
			base, err := store.Load(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(base.Strategies) != 2 || base.Strategies[0].Changes != nil || base.Strategies[0].Events != nil {
				t.Errorf("baseline is not the slim copy: %d strategies, %d changes", len(base.Strategies), len(base.Strategies[0].Changes))
			}
			// The gate reads the same figures from the stored baseline as from the run.
			rep, err := gate.Evaluate(cur, base)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range rep.Checks {
				if c.Rule.MaxRegression != nil && (c.Baseline == nil || *c.Baseline != c.Current) {
					t.Errorf("%s: baseline %v, current %g", c.Name(), c.Baseline, c.Current)
				}
			}
		})
	}
}

func TestS3MissingBucketIsAnError(t *testing.T) {
	ctx := context.Background()
	store, err := gate.OpenStore(ctx, "s3://no-such-bucket/b.json", newFakeS3(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Load(ctx); err == nil || errors.Is(err, gate.ErrNoBaseline) {
		t.Fatalf("err = %v, want a real error, not ErrNoBaseline", err)
	}
	if err := store.Save(ctx, &results.Results{}); err == nil {
		t.Fatal("save to a missing bucket succeeded")
	}
}

func TestOpenStoreRejectsBadLocations(t *testing.T) {
	for _, loc := range []string{"", "s3://", "s3://bucket", "s3://bucket/", "s3:///key"} {
		if _, err := gate.OpenStore(context.Background(), loc, gate.S3Options{}); err == nil {
			t.Errorf("%q: no error", loc)
		}
	}
}

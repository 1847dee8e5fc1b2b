package conformance_test

import (
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/restartsim/restartsim/fakeaws"
)

const (
	testRegion  = "us-west-2"
	testKey     = "AKIDCONFORMANCE"
	testSecret  = "secret-conformance"
	testAccount = "123456789012"
)

// startServer starts a fakeaws with the unlimited profile (no throttles, no injected latency) on a loopback
// listener and returns it with an SDK configuration that signs for it. The SDK does not retry, so every API
// error reaches the test as the server answered it.
func startServer(t testing.TB) (*fakeaws.Server, aws.Config) {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: testKey, SecretAccessKey: testSecret, Region: testRegion,
		AccountID: testAccount, Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return srv, aws.Config{
		Region:       testRegion,
		Credentials:  credentials.NewStaticCredentialsProvider(testKey, testSecret, ""),
		BaseEndpoint: aws.String(hs.URL),
		Retryer:      func() aws.Retryer { return aws.NopRetryer{} },
	}
}

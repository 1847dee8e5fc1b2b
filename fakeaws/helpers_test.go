package fakeaws_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/smithy-go"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/restartsim/restartsim/fakeaws"
)

const (
	testKey    = "AKIDTEST"
	testSecret = "secret-test"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type env struct {
	srv   *fakeaws.Server
	http  *httptest.Server
	clock *clocktesting.FakeClock
	cfg   aws.Config
	elb   *elb.Client
	ec2   *ec2.Client
}

// newEnv starts a server on httptest with a fake clock (unless opts.Clock is set) and SDK clients with retries off.
func newEnv(t testing.TB, opts fakeaws.Options) *env {
	t.Helper()
	e := &env{}
	if opts.Clock == nil {
		e.clock = clocktesting.NewFakeClock(t0)
		opts.Clock = e.clock
	}
	opts.AccessKeyID, opts.SecretAccessKey = testKey, testSecret
	if opts.Profile == "" {
		opts.Profile = fakeaws.ProfileUnlimited
	}
	srv, err := fakeaws.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	e.srv = srv
	for _, n := range []string{"", "-default", "-a", "-b", "-new"} { // the listener tests' certificates
		if o := srv.Options(); opts.From != nil || !strings.HasPrefix(certARN, "arn:aws:acm:"+o.Region+":"+o.AccountID+":") {
			break
		}
		if _, err := srv.SeedCertificate(fakeaws.CertificateSeed{Domain: "www.example.com", ARN: certARN + n}); err != nil {
			t.Fatal(err)
		}
	}
	e.http = httptest.NewServer(srv)
	t.Cleanup(e.http.Close)
	e.cfg = clientConfig(e.http.URL, testKey, testSecret)
	e.elb = elb.NewFromConfig(e.cfg)
	e.ec2 = ec2.NewFromConfig(e.cfg)
	return e
}

func clientConfig(url, key, secret string) aws.Config {
	return aws.Config{
		Region:       "us-west-2",
		Credentials:  credentials.NewStaticCredentialsProvider(key, secret, ""),
		BaseEndpoint: aws.String(url),
		Retryer:      transportOnlyRetryer,
	}
}

func apiCode(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return "non-API error: " + err.Error()
	}
	return ""
}

func wantCode(t testing.TB, err error, code string) {
	t.Helper()
	if got := apiCode(err); got != code {
		t.Fatalf("error code = %q (err %v), want %q", got, err, code)
	}
}

func must[T any](t testing.TB) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

var ctx = context.Background()

func (e *env) createTG(t testing.TB, name, targetType string, port int32) string {
	t.Helper()
	out, err := e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{
		Name: aws.String(name), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(port),
		VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnum(targetType),
	})
	if err != nil {
		t.Fatal(err)
	}
	return *out.TargetGroups[0].TargetGroupArn
}

// transportOnlyRetryer retries only transport failures (never an AWS error code), so tests see every throttle
// and error response while staying immune to aws-sdk-go-v2's sporadic client-side "use of closed network
// connection" read failures (aws/aws-sdk-go-v2#1825, reproducible against a bare net/http handler too).
func transportOnlyRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		o.RateLimiter = ratelimit.None
		o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
		o.Retryables = []retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			var ae smithy.APIError
			if errors.As(err, &ae) {
				return aws.FalseTernary
			}
			return aws.TrueTernary
		})}
	})
}

// outcomes counts the recorded outcomes of op after the first n calls.
func (e *env) outcomes(n int, op string) (ok, throttled int) {
	for _, c := range e.srv.Recorder().Since(n) {
		if c.Operation != op {
			continue
		}
		switch c.Outcome {
		case fakeaws.OutcomeOK:
			ok++
		case fakeaws.OutcomeThrottled:
			throttled++
		}
	}
	return ok, throttled
}

package awsclient

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	"github.com/aws/smithy-go/middleware"
	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/controller/internal/awsclient/throttle"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/internal/throttlespec"
)

// Config configures the clients. Defaulting happens in the controller's Options.
type Config struct {
	Region          string
	Endpoint        string // BaseEndpoint; empty = real AWS
	AccessKeyID     string // empty (with SecretAccessKey) = default credential chain
	SecretAccessKey string
	MaxAttempts     int
	Throttle        throttlespec.Config
	HTTPClient      *http.Client // nil = SDK default
	Logger          logr.Logger  // receives the SDK's own messages at V(1); zero: discarded
}

// Clients are the raw SDK clients.
type Clients struct {
	ELBV2 *elbv2.Client
	EC2   *ec2.Client
}

// NewClients builds ELBv2 and EC2 clients sharing one throttler; m (may be nil) receives per-attempt
// request counts and throttle waits.
func NewClients(ctx context.Context, cfg Config, m *metrics.Metrics) (*Clients, error) {
	opts := []func(*config.LoadOptions) error{
		config.WithRegion(cfg.Region),
		config.WithLogger(sdkLogger{log: cfg.Logger}),
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = cfg.MaxAttempts
				o.RateLimiter = ratelimit.None
			})
		}),
	}
	if cfg.AccessKeyID != "" || cfg.SecretAccessKey != "" {
		opts = append(opts, config.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(cfg.AccessKeyID, cfg.SecretAccessKey, "")))
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, config.WithHTTPClient(cfg.HTTPClient))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("loading AWS config: %w", err)
	}
	var observe func(string, string, time.Duration)
	if m != nil {
		observe = func(svc, op string, d time.Duration) { m.AWSThrottleWait.WithLabelValues(svc, op).Observe(d.Seconds()) }
	}
	th := throttle.New(cfg.Throttle, observe)
	awsCfg.APIOptions = append(awsCfg.APIOptions, th.Middleware())
	if m != nil {
		awsCfg.APIOptions = append(awsCfg.APIOptions, requestMetrics(m))
	}
	var endpoint *string
	if cfg.Endpoint != "" {
		endpoint = aws.String(cfg.Endpoint)
	}
	return &Clients{
		ELBV2: elbv2.NewFromConfig(awsCfg, func(o *elbv2.Options) { o.BaseEndpoint = endpoint }),
		EC2:   ec2.NewFromConfig(awsCfg, func(o *ec2.Options) { o.BaseEndpoint = endpoint }),
	}, nil
}

// requestMetrics counts every HTTP attempt (inside the retry loop) by outcome.
func requestMetrics(m *metrics.Metrics) func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("restartsim/requestMetrics",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				out, md, err := next.HandleFinalize(ctx, in)
				if errors.Is(err, context.Canceled) {
					return out, md, err
				}
				m.AWSRequests.WithLabelValues(middleware.GetServiceID(ctx), middleware.GetOperationName(ctx), Outcome(err)).Inc()
				return out, md, err
			}), middleware.After)
	}
}

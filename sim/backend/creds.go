package backend

import (
	"context"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
)

// Creds are the static credentials every client of a run uses.
type Creds struct{ Region, AccessKey, SecretKey string }

// SDKConfig is an aws.Config aimed at endpoint.
func SDKConfig(endpoint string, c Creds, maxAttempts int) aws.Config {
	return aws.Config{
		Region:       c.Region,
		Credentials:  credentials.NewStaticCredentialsProvider(c.AccessKey, c.SecretKey, ""),
		BaseEndpoint: aws.String(endpoint),
		Retryer: func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = maxAttempts
				o.MaxBackoff = 2 * time.Second
				o.RateLimiter = noRateLimit{}
			})
		},
		HTTPClient: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256, MaxConnsPerHost: 0}},
	}
}

// noRateLimit disables the retry token bucket, as the controller does.
type noRateLimit struct{}

func (noRateLimit) GetToken(context.Context, uint) (func() error, error) {
	return func() error { return nil }, nil
}
func (noRateLimit) AddTokens(uint) error { return nil }

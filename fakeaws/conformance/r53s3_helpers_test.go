package conformance_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"

	"github.com/restartsim/restartsim/fakeaws"
)

const (
	r53s3Key    = "AKIDCONFORMANCE"
	r53s3Secret = "secret-conformance"
)

// r53s3Server starts a fakeaws that never throttles, signing in region, and returns its URL.
func r53s3Server(t testing.TB, region string) string {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: r53s3Key, SecretAccessKey: r53s3Secret,
		Profile: fakeaws.ProfileUnlimited, Region: region})
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv)
	t.Cleanup(h.Close)
	return h.URL
}

// r53s3Config is an SDK configuration for url with retries off: every answer is the server's first.
func r53s3Config(url, region string) aws.Config {
	return aws.Config{Region: region, BaseEndpoint: aws.String(url),
		Credentials: credentials.NewStaticCredentialsProvider(r53s3Key, r53s3Secret, ""),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} }}
}

// r53Client is a Route53 client of a started fakeaws (Route53 is signed in us-east-1).
func r53Client(t testing.TB) *route53.Client {
	url := r53s3Server(t, "us-west-2")
	return route53.NewFromConfig(r53s3Config(url, "us-east-1"))
}

// s3Client is a path-style S3 client of a started fakeaws in region.
func s3Client(t testing.TB, region string) *s3.Client {
	url := r53s3Server(t, region)
	return s3.NewFromConfig(r53s3Config(url, region), func(o *s3.Options) { o.UsePathStyle = true })
}

func r53s3Ctx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// r53s3Code is the AWS error code of err, "" for none.
func r53s3Code(err error) string {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		return ae.ErrorCode()
	}
	if err != nil {
		return "non-API error: " + err.Error()
	}
	return ""
}

// r53Zone creates a public hosted zone and returns its ID.
func r53Zone(t testing.TB, c *route53.Client, name string) string {
	t.Helper()
	out, err := c.CreateHostedZone(r53s3Ctx(t), &route53.CreateHostedZoneInput{Name: aws.String(name), CallerReference: aws.String("ref-" + name)})
	if err != nil {
		t.Fatalf("CreateHostedZone %s: %v", name, err)
	}
	return aws.ToString(out.HostedZone.Id)
}

// r53Values is a record set of values with a TTL of 300.
func r53Values(name string, typ r53types.RRType, values ...string) *r53types.ResourceRecordSet {
	rs := &r53types.ResourceRecordSet{Name: aws.String(name), Type: typ, TTL: aws.Int64(300)}
	for _, v := range values {
		rs.ResourceRecords = append(rs.ResourceRecords, r53types.ResourceRecord{Value: aws.String(v)})
	}
	return rs
}

// r53Alias is an alias record set.
func r53Alias(name string, typ r53types.RRType, zone, target string) *r53types.ResourceRecordSet {
	return &r53types.ResourceRecordSet{Name: aws.String(name), Type: typ,
		AliasTarget: &r53types.AliasTarget{HostedZoneId: aws.String(zone), DNSName: aws.String(target)}}
}

// r53Batch is a ChangeResourceRecordSets input of one change.
func r53Batch(zone string, action r53types.ChangeAction, rs *r53types.ResourceRecordSet) *route53.ChangeResourceRecordSetsInput {
	return &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zone), ChangeBatch: &r53types.ChangeBatch{
		Changes: []r53types.Change{{Action: action, ResourceRecordSet: rs}}}}
}

package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/acm"
	acmtypes "github.com/aws/aws-sdk-go-v2/service/acm/types"
	"github.com/aws/smithy-go"

	"github.com/restartsim/restartsim/fakeaws"
)

// Where ACM's answers are documented.
const (
	acmDescribe = "https://docs.aws.amazon.com/acm/latest/APIReference/API_DescribeCertificate.html"
	acmRequest  = "https://docs.aws.amazon.com/acm/latest/APIReference/API_RequestCertificate.html"
	acmImport   = "https://docs.aws.amazon.com/acm/latest/APIReference/API_ImportCertificate.html"
	acmList     = "https://docs.aws.amazon.com/acm/latest/APIReference/API_ListCertificates.html"
	acmAddTags  = "https://docs.aws.amazon.com/acm/latest/APIReference/API_AddTagsToCertificate.html"
	acmDelete   = "https://docs.aws.amazon.com/acm/latest/APIReference/API_DeleteCertificate.html"
)

const acmNever = "arn:aws:acm:" + testRegion + ":" + testAccount + ":certificate/0c1d2e3f-aaaa-bbbb-cccc-0123456789ab"

// acmCases: each runs against a fresh server holding one seeded, issued certificate (the case's input gets
// its ARN).
var acmCases = []struct {
	name   string
	input  func(arn string) any
	want   string // "" for success, else the documented error code
	source string
}{
	{"DescribeCertificate of a seeded certificate", func(a string) any { return &acm.DescribeCertificateInput{CertificateArn: &a} }, "", acmDescribe},
	{"DescribeCertificate of a never-created ARN is ResourceNotFoundException",
		func(string) any { return &acm.DescribeCertificateInput{CertificateArn: aws.String(acmNever)} }, "ResourceNotFoundException", acmDescribe},
	{"DescribeCertificate of a malformed ARN is InvalidArnException",
		func(string) any {
			return &acm.DescribeCertificateInput{CertificateArn: aws.String("arn:aws:s3:::bucket")}
		}, "InvalidArnException", acmDescribe},
	{"RequestCertificate of an invalid domain is InvalidDomainValidationOptionsException",
		func(string) any { return &acm.RequestCertificateInput{DomainName: aws.String("-bad-")} }, "InvalidDomainValidationOptionsException", acmRequest},
	{"RequestCertificate of more than 10 names is LimitExceededException", func(string) any {
		sans := make([]string, 11)
		for i := range sans {
			sans[i] = fmt.Sprintf("n%d.example.com", i)
		}
		return &acm.RequestCertificateInput{DomainName: aws.String("example.com"), SubjectAlternativeNames: sans}
	}, "LimitExceededException", acmRequest},
	{"ImportCertificate of text that is no PEM is ValidationException", func(string) any {
		return &acm.ImportCertificateInput{Certificate: []byte("x"), PrivateKey: []byte("y")}
	}, "ValidationException", acmImport},
	{"ListCertificates with MaxItems 0 is ValidationException",
		func(string) any { return &acm.ListCertificatesInput{MaxItems: aws.Int32(0)} }, "ValidationException", acmList},
	{"AddTagsToCertificate with an aws: key is InvalidTagException", func(a string) any {
		return &acm.AddTagsToCertificateInput{CertificateArn: &a, Tags: []acmtypes.Tag{{Key: aws.String("aws:x")}}}
	}, "InvalidTagException", acmAddTags},
	{"DeleteCertificate of a never-created ARN is ResourceNotFoundException",
		func(string) any { return &acm.DeleteCertificateInput{CertificateArn: aws.String(acmNever)} }, "ResourceNotFoundException", acmDelete},
}

func TestACMConformance(t *testing.T) {
	for _, tc := range acmCases {
		t.Run(tc.name, func(t *testing.T) {
			srv, cfg := startServer(t)
			seeded, err := srv.SeedCertificate(fakeaws.CertificateSeed{Domain: "www.example.com"})
			if err != nil {
				t.Fatal(err)
			}
			err = callACM(context.Background(), acm.NewFromConfig(cfg), tc.input(seeded.ARN))
			got := ""
			var ae smithy.APIError
			if errors.As(err, &ae) {
				got = ae.ErrorCode()
			} else if err != nil {
				t.Fatalf("not an API error: %v", err)
			}
			if got != tc.want {
				t.Fatalf("answered %q (%v), want %q (%s)", got, err, tc.want, tc.source)
			}
		})
	}
}

func callACM(ctx context.Context, c *acm.Client, in any) error {
	var err error
	switch in := in.(type) {
	case *acm.DescribeCertificateInput:
		_, err = c.DescribeCertificate(ctx, in)
	case *acm.RequestCertificateInput:
		_, err = c.RequestCertificate(ctx, in)
	case *acm.ImportCertificateInput:
		_, err = c.ImportCertificate(ctx, in)
	case *acm.ListCertificatesInput:
		_, err = c.ListCertificates(ctx, in)
	case *acm.AddTagsToCertificateInput:
		_, err = c.AddTagsToCertificate(ctx, in)
	case *acm.DeleteCertificateInput:
		_, err = c.DeleteCertificate(ctx, in)
	default:
		return fmt.Errorf("no ACM call for %s", strings.TrimPrefix(fmt.Sprintf("%T", in), "*"))
	}
	return err
}

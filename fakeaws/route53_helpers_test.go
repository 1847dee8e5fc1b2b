package fakeaws_test

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
)

// route53Client is a Route53 client of e, signing in us-east-1 as the SDK does for the global endpoint.
func (e *env) route53Client() *route53.Client {
	cfg := e.cfg.Copy()
	cfg.Region = "us-east-1"
	return route53.NewFromConfig(cfg)
}

func createZone(t testing.TB, c *route53.Client, name string) string {
	t.Helper()
	out, err := c.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String(name), CallerReference: aws.String("ref-" + name)})
	if err != nil {
		t.Fatal(err)
	}
	return *out.HostedZone.Id
}

func aSet(name, ip string) *r53types.ResourceRecordSet {
	return &r53types.ResourceRecordSet{Name: aws.String(name), Type: r53types.RRTypeA, TTL: aws.Int64(300),
		ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(ip)}}}
}

func txtSet(name, text string) *r53types.ResourceRecordSet {
	return &r53types.ResourceRecordSet{Name: aws.String(name), Type: r53types.RRTypeTxt, TTL: aws.Int64(300),
		ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(fmt.Sprintf("%q", text))}}}
}

func change(action r53types.ChangeAction, set *r53types.ResourceRecordSet) r53types.Change {
	return r53types.Change{Action: action, ResourceRecordSet: set}
}

func changeSets(c *route53.Client, zone string, changes ...r53types.Change) (*route53.ChangeResourceRecordSetsOutput, error) {
	return c.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zone),
		ChangeBatch: &r53types.ChangeBatch{Changes: changes}})
}

// listAll lists every record set of a zone through the SDK's paginator, returning "name type id" keys and
// the number of pages.
func listAll(t testing.TB, c *route53.Client, zone string) ([]string, int) {
	t.Helper()
	var keys []string
	pages := 0
	p := route53.NewListResourceRecordSetsPaginator(c, &route53.ListResourceRecordSetsInput{HostedZoneId: aws.String(zone)})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(out.ResourceRecordSets) > 300 {
			t.Fatalf("page of %d record sets, Route53 returns at most 300", len(out.ResourceRecordSets))
		}
		for _, rs := range out.ResourceRecordSets {
			keys = append(keys, fmt.Sprintf("%s %s %s", aws.ToString(rs.Name), rs.Type, aws.ToString(rs.SetIdentifier)))
		}
	}
	return keys, pages
}

package backend

import (
	"context"
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestExternalDNSScenarioNamesAreValid: the shipped external-dns scenario's zones seed under Route53's name
// rules, and the records external-dns writes for its Services (svc-N.zone-M.example.com A, and the TXT
// registry's a-svc-N record with its ownership string) are accepted in them.
func TestExternalDNSScenarioNamesAreValid(t *testing.T) {
	t.Setenv("EXTERNAL_DNS_BINARY", "/bin/true") // the scenario names the binary; this test runs none
	sc, err := scenario.Load("../../scenarios/external-dns/restart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	names, err := sc.AWS.HostedZones.Names()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "k", SecretAccessKey: "s", Profile: "unlimited"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Start(""); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	cr := Creds{Region: "us-west-2", AccessKey: "k", SecretKey: "s"}
	if err := SeedHostedZones(ctx, Local{srv}, cr, names); err != nil {
		t.Fatal(err)
	}
	zones := map[string]string{}
	for _, z := range srv.HostedZones() {
		zones[z.Name] = z.ID
	}
	cfg := SDKConfig(srv.URL(), cr, 30)
	r53 := route53.NewFromConfig(cfg)
	for _, i := range []int{0, 1, 1999} {
		zone := fmt.Sprintf("zone-%d.example.com", i%len(names))
		owner := fmt.Sprintf(`"heritage=external-dns,external-dns/owner=default,external-dns/resource=service/default/svc-%d"`, i)
		_, err := r53.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zones[zone+"."]),
			ChangeBatch: &r53types.ChangeBatch{Changes: []r53types.Change{
				{Action: r53types.ChangeActionCreate, ResourceRecordSet: &r53types.ResourceRecordSet{Name: aws.String(fmt.Sprintf("svc-%d.%s", i, zone)),
					Type: r53types.RRTypeA, TTL: aws.Int64(300), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(fmt.Sprintf("10.1.%d.%d", i/250, 1+i%250))}}}},
				{Action: r53types.ChangeActionCreate, ResourceRecordSet: &r53types.ResourceRecordSet{Name: aws.String(fmt.Sprintf("a-svc-%d.%s", i, zone)),
					Type: r53types.RRTypeTxt, TTL: aws.Int64(300), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(owner)}}}},
			}}})
		if err != nil {
			t.Fatalf("Service %d's records in %s: %v", i, zone, err)
		}
	}
}

package backend

import (
	"context"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"

	"github.com/restartsim/restartsim/fakeaws"
)

// SeedHostedZones creates, through the Route53 API as a user would, the public hosted zones of names that
// the account does not hold yet (a standalone fakeaws keeps its zones between runs; Route53 would make a
// second zone of the same name, which a DNS controller would write to as well).
func SeedHostedZones(ctx context.Context, b Backend, c Creds, names []string) error {
	if len(names) == 0 {
		return nil
	}
	// Signed in the scenario's region, as an SDK with an overridden endpoint signs a global service.
	cfg := SDKConfig(b.URL(), c, 30)
	r53 := route53.NewFromConfig(cfg)
	have := map[string]bool{}
	p := route53.NewListHostedZonesPaginator(r53, &route53.ListHostedZonesInput{})
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return fmt.Errorf("ListHostedZones: %w", err)
		}
		for _, z := range out.HostedZones {
			have[aws.ToString(z.Name)] = true
		}
	}
	for _, n := range names {
		if have[fakeaws.CanonicalDNSName(n)] {
			continue
		}
		if _, err := r53.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{
			Name: aws.String(n), CallerReference: aws.String("restartsim-" + n),
		}); err != nil {
			return fmt.Errorf("CreateHostedZone %s: %w", n, err)
		}
	}
	return nil
}

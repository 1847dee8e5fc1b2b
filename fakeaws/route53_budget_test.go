package fakeaws_test

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// budgetMix sends request i of a hostile mix; it returns the error that ends the mix (a limit error).
type budgetMix func(c *route53.Client, zone string, i int) error

// txtValue is a TXT value of 15 character strings of 255 characters: 3,855 characters, under 4,000.
var txtValue = strings.TrimSpace(strings.Repeat(`"`+strings.Repeat("x", 255)+`" `, 15))

// aliasTarget is the longest ELB alias name of 63-byte labels of "*" (each stored as the 4-byte \052).
var aliasTarget = strings.TrimSuffix(strings.Repeat(strings.Repeat("*", 63)+".", 15), ".") + ".elb.amazonaws.com"

var budgetMixes = map[string]budgetMix{
	"record sets of 8 values of 3,855 characters": func(c *route53.Client, zone string, i int) error {
		rs := &r53types.ResourceRecordSet{Name: aws.String(fmt.Sprintf("r%d.budget.example", i)), Type: r53types.RRTypeTxt, TTL: aws.Int64(60)}
		for range 8 {
			rs.ResourceRecords = append(rs.ResourceRecords, r53types.ResourceRecord{Value: aws.String(txtValue)})
		}
		_, err := changeSets(c, zone, change(r53types.ChangeActionCreate, rs))
		return err
	},
	"batches of 100 aliases of 3,800 stored bytes": func(c *route53.Client, zone string, i int) error {
		changes := make([]r53types.Change, 100)
		for j := range changes {
			changes[j] = change(r53types.ChangeActionCreate, &r53types.ResourceRecordSet{Name: aws.String(fmt.Sprintf("a%d-%d.budget.example", i, j)),
				Type: r53types.RRTypeA, AliasTarget: &r53types.AliasTarget{HostedZoneId: aws.String("Z1H1FL5HABSF5"), DNSName: aws.String(aliasTarget)}})
		}
		_, err := changeSets(c, zone, changes...)
		return err
	},
	"zones of the longest comment, caller reference and 50 longest tags": func(c *route53.Client, _ string, i int) error {
		out, err := c.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String(fmt.Sprintf("z%d.budget.example", i)),
			CallerReference: aws.String(fmt.Sprintf("%0128d", i)), HostedZoneConfig: &r53types.HostedZoneConfig{Comment: aws.String(strings.Repeat("c", 256))}})
		if err != nil {
			return err
		}
		tags := make([]r53types.Tag, 50)
		for j := range tags {
			tags[j] = r53types.Tag{Key: aws.String(fmt.Sprintf("%0128d", j)), Value: aws.String(strings.Repeat("v", 256))}
		}
		_, err = c.ChangeTagsForResource(ctx, &route53.ChangeTagsForResourceInput{ResourceType: r53types.TagResourceTypeHostedzone,
			ResourceId: out.HostedZone.Id, AddTags: tags})
		return err
	},
	"changes of the longest comment, kept for GetChange": func(c *route53.Client, zone string, i int) error {
		_, err := c.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zone),
			ChangeBatch: &r53types.ChangeBatch{Comment: aws.String(strings.Repeat("c", 256)),
				Changes: []r53types.Change{change(r53types.ChangeActionUpsert, aSet("c.budget.example", fmt.Sprintf("10.0.%d.%d", i/256%256, i%256)))}}})
		return err
	},
}

// heapNow is the live heap after two collections.
func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestRoute53BudgetHolds: whatever the mix of large requests, each alone and all in turn on one server,
// the Route53 state keeps at most MaxRoute53Bytes by its own count, and the live heap the server holds grows
// by at most three times that (the count includes Go's overheads; before the budget, such mixes held 185 to
// 432 MB).
func TestRoute53BudgetHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("fills the Route53 budget five times")
	}
	names := slices.Sorted(maps.Keys(budgetMixes))
	for _, name := range names {
		t.Run(name, func(t *testing.T) { budgetRun(t, []string{name}) })
	}
	t.Run("all in turn", func(t *testing.T) { budgetRun(t, names) })
}

// budgetRun sends each mix in turn to one fresh server until it is refused, then checks the count and the
// heap.
func budgetRun(t *testing.T, mixes []string) {
	const maxRequests = 12000 // the change mix needs some 9,000 to fill MaxChangeBytes
	before := heapNow()
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "budget.example")
	for _, name := range mixes {
		var err error
		i := 0
		for ; i < maxRequests && err == nil; i++ {
			err = budgetMixes[name](c, zone, i)
		}
		if code := apiCode(err); err != nil && code != "InvalidChangeBatch" && code != "TooManyHostedZones" && code != "LimitsExceeded" {
			t.Fatalf("%s: request %d: %v, want a limit error", name, i, err)
		}
		t.Logf("%s: %d requests (last %s), %d bytes kept", name, i, apiCode(err), e.srv.Route53Bytes())
	}
	kept := e.srv.Route53Bytes()
	grew := int64(heapNow()) - int64(before)
	t.Logf("%d bytes kept, heap grew %d bytes", kept, grew)
	if kept > fakeaws.MaxRoute53Bytes {
		t.Errorf("Route53 keeps %d bytes, over its budget of %d", kept, fakeaws.MaxRoute53Bytes)
	}
	if grew > 3*fakeaws.MaxRoute53Bytes {
		t.Errorf("heap grew %d bytes, over three times the budget of %d", grew, fakeaws.MaxRoute53Bytes)
	}
	runtime.KeepAlive(e)
}

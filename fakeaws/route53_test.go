package fakeaws_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestRoute53ZoneLifecycle(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	id := createZone(t, c, "Example.COM")
	if !strings.HasPrefix(id, "/hostedzone/Z") {
		t.Fatalf("zone ID %q, want /hostedzone/Z...", id)
	}
	got := must[*route53.GetHostedZoneOutput](t)(c.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: aws.String(id)}))
	if *got.HostedZone.Name != "example.com." || got.HostedZone.Config.PrivateZone || *got.HostedZone.ResourceRecordSetCount != 2 {
		t.Fatalf("zone = %+v, want public example.com. with SOA and NS", got.HostedZone)
	}
	if got.DelegationSet == nil || len(got.DelegationSet.NameServers) != 4 {
		t.Fatalf("delegation set = %+v, want four name servers", got.DelegationSet)
	}
	if keys, _ := listAll(t, c, id); !slices.Equal(keys, []string{"example.com. NS ", "example.com. SOA "}) {
		t.Fatalf("new zone's record sets = %q, want its NS and SOA", keys)
	}
	private := must[*route53.CreateHostedZoneOutput](t)(c.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{
		Name: aws.String("internal.example"), CallerReference: aws.String("p"),
		HostedZoneConfig: &r53types.HostedZoneConfig{PrivateZone: true},
		VPC:              &r53types.VPC{VPCId: aws.String(e.srv.DefaultVPCID()), VPCRegion: r53types.VPCRegionUsWest2},
	}))
	if !private.HostedZone.Config.PrivateZone || private.DelegationSet != nil {
		t.Fatalf("private zone = %+v with delegation %+v", private.HostedZone, private.DelegationSet)
	}
	_, err := c.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String("other.com"), CallerReference: aws.String("p")})
	wantCode(t, err, "HostedZoneAlreadyExists")

	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, id, change(r53types.ChangeActionCreate, aSet("www.example.com", "10.0.0.1"))))
	_, err = c.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: aws.String(id)})
	wantCode(t, err, "HostedZoneNotEmpty")
	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, id, change(r53types.ChangeActionDelete, aSet("www.example.com.", "10.0.0.1"))))
	must[*route53.DeleteHostedZoneOutput](t)(c.DeleteHostedZone(ctx, &route53.DeleteHostedZoneInput{Id: aws.String(id)}))
	_, err = c.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: aws.String(id)})
	var nsz *r53types.NoSuchHostedZone
	if !errors.As(err, &nsz) {
		t.Fatalf("GetHostedZone of a deleted zone: %v, want NoSuchHostedZone", err)
	}
}

func TestRoute53ListHostedZones(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	names := []string{"b.example.org", "a.example.com", "example.com", "z.example.net", "c.example.org"}
	ids := map[string]string{}
	for _, n := range names {
		ids[n+"."] = strings.TrimPrefix(createZone(t, c, n), "/hostedzone/")
	}
	var seen []string
	p := route53.NewListHostedZonesPaginator(c, &route53.ListHostedZonesInput{MaxItems: aws.Int32(2)})
	for p.HasMorePages() {
		out := must[*route53.ListHostedZonesOutput](t)(p.NextPage(ctx))
		if len(out.HostedZones) > 2 {
			t.Fatalf("page of %d zones with MaxItems 2", len(out.HostedZones))
		}
		for _, z := range out.HostedZones {
			seen = append(seen, *z.Id)
		}
	}
	if len(seen) != len(names) || !slices.IsSorted(seen) {
		t.Fatalf("ListHostedZones pages gave %q, want all %d zones by ID", seen, len(names))
	}
	byName := must[*route53.ListHostedZonesByNameOutput](t)(c.ListHostedZonesByName(ctx, &route53.ListHostedZonesByNameInput{MaxItems: aws.Int32(3)}))
	var order []string
	for _, z := range byName.HostedZones {
		order = append(order, *z.Name)
	}
	if want := []string{"example.com.", "a.example.com.", "z.example.net."}; !slices.Equal(order, want) || !byName.IsTruncated || *byName.NextDNSName != "b.example.org." {
		t.Fatalf("ListHostedZonesByName = %q truncated %v next %v, want %q then b.example.org.", order, byName.IsTruncated, aws.ToString(byName.NextDNSName), want)
	}
	next := must[*route53.ListHostedZonesByNameOutput](t)(c.ListHostedZonesByName(ctx, &route53.ListHostedZonesByNameInput{DNSName: byName.NextDNSName, HostedZoneId: byName.NextHostedZoneId}))
	if len(next.HostedZones) != 2 || *next.HostedZones[0].Name != "b.example.org." || next.IsTruncated {
		t.Fatalf("second page = %+v", next.HostedZones)
	}
}

func TestRoute53Tags(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	a, b := createZone(t, c, "a.test"), createZone(t, c, "b.test")
	idA := strings.TrimPrefix(a, "/hostedzone/")
	must[*route53.ChangeTagsForResourceOutput](t)(c.ChangeTagsForResource(ctx, &route53.ChangeTagsForResourceInput{
		ResourceType: r53types.TagResourceTypeHostedzone, ResourceId: aws.String(idA),
		AddTags: []r53types.Tag{{Key: aws.String("owner"), Value: aws.String("dns")}, {Key: aws.String("drop"), Value: aws.String("x")}},
	}))
	must[*route53.ChangeTagsForResourceOutput](t)(c.ChangeTagsForResource(ctx, &route53.ChangeTagsForResourceInput{
		ResourceType: r53types.TagResourceTypeHostedzone, ResourceId: aws.String(idA), RemoveTagKeys: []string{"drop"},
	}))
	one := must[*route53.ListTagsForResourceOutput](t)(c.ListTagsForResource(ctx, &route53.ListTagsForResourceInput{
		ResourceType: r53types.TagResourceTypeHostedzone, ResourceId: aws.String(idA)}))
	if tags := one.ResourceTagSet.Tags; len(tags) != 1 || *tags[0].Key != "owner" || *tags[0].Value != "dns" {
		t.Fatalf("tags = %+v, want owner=dns", tags)
	}
	many := must[*route53.ListTagsForResourcesOutput](t)(c.ListTagsForResources(ctx, &route53.ListTagsForResourcesInput{
		ResourceType: r53types.TagResourceTypeHostedzone, ResourceIds: []string{idA, strings.TrimPrefix(b, "/hostedzone/")}}))
	if len(many.ResourceTagSets) != 2 || len(many.ResourceTagSets[0].Tags) != 1 || len(many.ResourceTagSets[1].Tags) != 0 {
		t.Fatalf("ListTagsForResources = %+v", many.ResourceTagSets)
	}
	_, err := c.ListTagsForResource(ctx, &route53.ListTagsForResourceInput{ResourceType: r53types.TagResourceTypeHostedzone, ResourceId: aws.String("ZNOPE")})
	wantCode(t, err, "NoSuchHostedZone")
}

// TestRoute53RecordPagination writes record sets in a random order and reads them back through the SDK's
// paginator: pages of at most 300, ordered by name with the labels reversed, then type.
func TestRoute53RecordPagination(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "example.com")
	var changes []r53types.Change
	want := []string{"example.com. NS ", "example.com. SOA "}
	for i := range 330 {
		name := fmt.Sprintf("h%03d.svc-%d.example.com.", i, i%7)
		changes = append(changes, change(r53types.ChangeActionCreate, aSet(name, "10.0.0.1")), change(r53types.ChangeActionCreate, txtSet(name, "owner")))
		want = append(want, name+" A ", name+" TXT ")
	}
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(changes), func(i, j int) { changes[i], changes[j] = changes[j], changes[i] })
	for len(changes) > 0 {
		n := min(len(changes), 400)
		must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, changes[:n]...))
		changes = changes[n:]
	}
	// Route53's order: svc-0 before svc-1 (the parent label decides first), h000 before h007 within one.
	slices.SortStableFunc(want[2:], func(a, b string) int {
		pa, pb := strings.Split(strings.Fields(a)[0], "."), strings.Split(strings.Fields(b)[0], ".")
		if c := strings.Compare(pa[1], pb[1]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	got, pages := listAll(t, c, zone)
	if pages != 3 {
		t.Errorf("%d record sets in %d pages, want 3 pages of at most 300", len(got), pages)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("record sets out of Route53's order: first got %q, want %q", got[:6], want[:6])
	}
	from := must[*route53.ListResourceRecordSetsOutput](t)(c.ListResourceRecordSets(ctx, &route53.ListResourceRecordSetsInput{
		HostedZoneId: aws.String(zone), StartRecordName: aws.String("h007.svc-0.example.com"), StartRecordType: r53types.RRTypeTxt, MaxItems: aws.Int32(2)}))
	if n := *from.ResourceRecordSets[0].Name; n != "h007.svc-0.example.com." || from.ResourceRecordSets[0].Type != r53types.RRTypeTxt ||
		!from.IsTruncated || *from.NextRecordName != "h014.svc-0.example.com." || from.NextRecordType != r53types.RRTypeTxt {
		t.Fatalf("page from h007 TXT = %+v next %v %v", from.ResourceRecordSets, aws.ToString(from.NextRecordName), from.NextRecordType)
	}
}

func TestRoute53AliasAndWeighted(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "example.com")
	alias := &r53types.ResourceRecordSet{Name: aws.String("*.example.com"), Type: r53types.RRTypeA, AliasTarget: &r53types.AliasTarget{
		HostedZoneId: aws.String("Z1H1FL5HABSF5"), DNSName: aws.String("my-lb-123.us-west-2.elb.amazonaws.com"), EvaluateTargetHealth: true}}
	w1, w2 := aSet("api.example.com", "10.0.0.1"), aSet("api.example.com", "10.0.0.2")
	w1.SetIdentifier, w1.Weight, w2.SetIdentifier, w2.Weight = aws.String("blue"), aws.Int64(10), aws.String("green"), aws.Int64(90)
	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, change(r53types.ChangeActionUpsert, alias),
		change(r53types.ChangeActionCreate, w1), change(r53types.ChangeActionCreate, w2)))
	sets := must[[]fakeaws.RecordSet](t)(e.srv.RecordSets(zone))
	var got []string
	for _, rs := range sets {
		got = append(got, fmt.Sprintf("%s %s %s", rs.Name, rs.Type, rs.SetIdentifier))
	}
	want := []string{"example.com. NS ", "example.com. SOA ", `\052.example.com. A `, "api.example.com. A blue", "api.example.com. A green"}
	if !slices.Equal(got, want) {
		t.Fatalf("record sets = %q, want %q", got, want)
	}
	if a := sets[2].AliasTarget; a == nil || a.DNSName != "my-lb-123.us-west-2.elb.amazonaws.com." || !a.EvaluateTargetHealth || sets[2].TTL != nil {
		t.Fatalf("alias = %+v", sets[2])
	}
	// Deleting a weighted set names it exactly, weight included.
	w1.Weight = aws.Int64(11)
	_, err := changeSets(c, zone, change(r53types.ChangeActionDelete, w1))
	wantBatch(t, err, "Tried to delete resource record set [name='api.example.com.', type='A', set-identifier='blue'] but the values provided do not match the current values")
}

func wantBatch(t *testing.T, err error, msgs ...string) {
	t.Helper()
	var icb *r53types.InvalidChangeBatch
	if !errors.As(err, &icb) {
		t.Fatalf("error %v, want InvalidChangeBatch", err)
	}
	if !slices.Equal(icb.Messages, msgs) {
		t.Fatalf("InvalidChangeBatch messages %q, want %q", icb.Messages, msgs)
	}
}

func TestRoute53GetChangeInSyncAfterDelay(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Route53PropagationDelay: 30 * time.Second})
	c := e.route53Client()
	zone := createZone(t, c, "example.com")
	out := must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("a.example.com", "10.1.1.1"))))
	if out.ChangeInfo.Status != r53types.ChangeStatusPending || !strings.HasPrefix(*out.ChangeInfo.Id, "/change/C") {
		t.Fatalf("new change = %+v, want PENDING /change/C...", out.ChangeInfo)
	}
	get := func() r53types.ChangeStatus {
		g := must[*route53.GetChangeOutput](t)(c.GetChange(ctx, &route53.GetChangeInput{Id: out.ChangeInfo.Id}))
		return g.ChangeInfo.Status
	}
	e.clock.Step(29 * time.Second)
	if s := get(); s != r53types.ChangeStatusPending {
		t.Fatalf("status 29s after = %s, want PENDING", s)
	}
	e.clock.Step(time.Second)
	if s := get(); s != r53types.ChangeStatusInsync {
		t.Fatalf("status 30s after = %s, want INSYNC", s)
	}
	_, err := c.GetChange(ctx, &route53.GetChangeInput{Id: aws.String("/change/CNOSUCH")})
	wantCode(t, err, "NoSuchChange")
}

// TestRoute53Throttle: the documented 5 requests per second for the whole API; the sixth call in one
// instant is Throttling, which the SDK's retryer classifies as a throttle.
func TestRoute53Throttle(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileAWSDocumented})
	c := e.route53Client()
	zone := createZone(t, c, "example.com")
	for range 4 {
		must[*route53.GetHostedZoneOutput](t)(c.GetHostedZone(ctx, &route53.GetHostedZoneInput{Id: aws.String(zone)}))
	}
	_, err := c.ListHostedZones(ctx, &route53.ListHostedZonesInput{})
	wantCode(t, err, "Throttling")
	if retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err) != aws.TrueTernary {
		t.Fatalf("the SDK does not classify %v as a throttle", err)
	}
	last := e.srv.Recorder().Since(0)
	if c := last[len(last)-1]; c.Outcome != fakeaws.OutcomeThrottled || c.HTTPStatus != 400 || c.Bucket != fakeaws.CategoryRoute53 {
		t.Fatalf("recorded %+v, want a throttled 400 in bucket %s", c, fakeaws.CategoryRoute53)
	}
	e.clock.Step(time.Second)
	must[*route53.ListHostedZonesOutput](t)(c.ListHostedZones(ctx, &route53.ListHostedZonesInput{}))
}

func TestRoute53FaultsAndRecorder(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "example.com")
	e.srv.SetErrorRate("ChangeResourceRecordSets", 1, "InternalFailure")
	_, err := changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("a.example.com", "10.1.1.1")))
	wantCode(t, err, "InternalFailure")
	calls := e.srv.Recorder().Since(0)
	got := calls[len(calls)-1]
	if got.Service != fakeaws.ServiceRoute53 || got.Operation != "ChangeResourceRecordSets" || got.HTTPStatus != 500 ||
		got.HostedZoneID != strings.TrimPrefix(zone, "/hostedzone/") {
		t.Fatalf("recorded %+v", got)
	}
	e.srv.SetErrorRate("ChangeResourceRecordSets", 0, "")
	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("a.example.com", "10.1.1.1"))))
	if n := counterValue(t, e.srv, "fakeaws_requests_total", map[string]string{"service": "route53", "operation": "ChangeResourceRecordSets", "code": "OK"}); n != 1 {
		t.Fatalf("fakeaws_requests_total{route53,ChangeResourceRecordSets,OK} = %v, want 1", n)
	}
}

// Route53 is global: an SDK signs it for us-east-1 at the global endpoint, and in the client's region when
// its endpoint is overridden; a scope naming any other region is refused.
func TestRoute53SigningRegion(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Region: "us-west-2"})
	for _, region := range []string{"us-west-2", "us-east-1"} {
		cfg := e.cfg.Copy()
		cfg.Region = region
		c := route53.NewFromConfig(cfg)
		zone := createZone(t, c, region+".example.com")
		must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("a."+region+".example.com", "10.1.1.1"))))
	}
	cfg := e.cfg.Copy()
	cfg.Region = "eu-west-1"
	_, err := route53.NewFromConfig(cfg).ListHostedZones(ctx, &route53.ListHostedZonesInput{})
	wantCode(t, err, "SignatureDoesNotMatch")
	if !strings.Contains(err.Error(), "not 'eu-west-1'") {
		t.Fatalf("error %v does not name the region it was signed for", err)
	}
	calls := e.srv.Recorder().Since(0)
	if last := calls[len(calls)-1]; last.Service != fakeaws.ServiceRoute53 || last.ErrorCode != "SignatureDoesNotMatch" ||
		!strings.Contains(last.ErrorMessage, "not 'eu-west-1'") {
		t.Fatalf("last recorded call %+v, want Route53's refusal", last)
	}
}

func TestRoute53SnapshotRoundTrip(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "example.com")
	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("a.example.com", "10.1.1.1"))))
	snap := must[*fakeaws.Snapshot](t)(e.srv.Snapshot())
	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("b.example.com", "10.1.1.2"))))

	restored := newEnv(t, fakeaws.Options{From: snap})
	rc := restored.route53Client()
	keys, _ := listAll(t, rc, zone)
	if want := []string{"example.com. NS ", "example.com. SOA ", "a.example.com. A "}; !slices.Equal(keys, want) {
		t.Fatalf("restored record sets = %q, want %q (the copy is taken before b)", keys, want)
	}
	// The copy is independent, and mints no ID the original already handed out.
	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(rc, zone, change(r53types.ChangeActionDelete, aSet("a.example.com", "10.1.1.1"))))
	if sets := must[[]fakeaws.RecordSet](t)(e.srv.RecordSets(zone)); len(sets) != 4 {
		t.Fatalf("original has %d record sets after the copy changed, want 4", len(sets))
	}
	other := createZone(t, rc, "other.example")
	if _, err := e.srv.HostedZone(other); err == nil {
		t.Fatalf("zone %s created on the copy exists on the original", other)
	}
}

func TestRoute53InAdminStateDump(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "dump.example")
	must[*route53.ChangeResourceRecordSetsOutput](t)(changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("a.dump.example", "10.9.9.9"))))
	code, body := adminDo(t, e, "GET", "/_restartsim/state", "", true)
	if code != 200 || !strings.Contains(body, `"hostedZones":[{"id":"`+strings.TrimPrefix(zone, "/hostedzone/")) || !strings.Contains(body, `"10.9.9.9"`) {
		t.Fatalf("state dump (%d) lacks the zone and its record set: %.400s", code, body)
	}
}

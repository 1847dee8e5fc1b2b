package objects

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

// recordsTemplate is a ConfigMap per DNS name, in the style of external-dns's Services: an A record of
// data.host in the zone named data.zone, holding data.ip.
const recordsTemplate = `{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "rec-{{.Index}}"},
  "data": {"zone": "Example.Test", "host": "svc-{{.Index}}.example.test", "ip": "10.0.0.{{add 1 .Index}}"}}`

// TestRecordSetChangeFirstMutation patches the IP of two record-set objects whose zone the scenario gives
// by domain name, then plays their DNS controller by hand through the Route53 API: each change's first
// meaningful mutation is the ChangeResourceRecordSets whose batch holds its record set, not an earlier
// batch that changed only other sets of the zone.
func TestRecordSetChangeFirstMutation(t *testing.T) {
	env := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := env.Client
	run := Env{RunID: "records", Region: "us-west-2", ClusterName: "c", Namespaces: []string{"records-a"}}
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: run.Namespaces[0]}}); err != nil {
		t.Fatal(err)
	}
	srv, dns := startFakeRoute53(t)
	run.VpcID = srv.DefaultVPCID()
	zone, err := dns.CreateHostedZone(ctx, &route53.CreateHostedZoneInput{Name: aws.String("example.test"), CallerReference: aws.String("records")})
	if err != nil {
		t.Fatal(err)
	}
	zoneID := aws.ToString(zone.HostedZone.Id)
	upsert := func(sets map[string]string) fakeaws.Call {
		t.Helper()
		var changes []r53types.Change
		for host, ip := range sets {
			changes = append(changes, r53types.Change{Action: r53types.ChangeActionUpsert, ResourceRecordSet: &r53types.ResourceRecordSet{
				Name: aws.String(host), Type: r53types.RRTypeA, TTL: aws.Int64(60), ResourceRecords: []r53types.ResourceRecord{{Value: aws.String(ip)}}}})
		}
		if _, err := dns.ChangeResourceRecordSets(ctx, &route53.ChangeResourceRecordSetsInput{HostedZoneId: aws.String(zoneID),
			ChangeBatch: &r53types.ChangeBatch{Changes: changes}}); err != nil {
			t.Fatal(err)
		}
		calls := srv.Recorder().Calls()
		return calls[len(calls)-1]
	}

	f := compile(t, Group{Name: "records", Count: 3, Template: json.RawMessage(recordsTemplate), Ready: "aws != null",
		AWS:       &AWSRef{Kind: AWSRecordSet, Zone: "object.data.zone", Name: "object.data.host", Type: `"A"`},
		Invariant: `aws != null && aws.values == [object.data.ip]`})
	if err := createAll(ctx, f, c, run, CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	upsert(map[string]string{"svc-0.example.test": "10.0.0.1", "svc-1.example.test": "10.0.0.2", "svc-2.example.test": "10.0.0.3"})
	waitReady(ctx, t, f, c, run, srv, "records", testwait.Scale(t, 30*time.Second))

	pt, err := f.CompilePatch(Patch{Group: "records", Merge: json.RawMessage(`{"data": {"ip": "10.0.1.{{.Seq}}"}}`),
		Applied: `aws != null && aws.values == [object.data.ip]`, Mutations: []string{"ChangeResourceRecordSets"}}, "timeline[0]")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := pt.Apply(ctx, c, run, PatchOptions{Count: 2, Rand: rand.New(rand.NewPCG(3, 4)), FirstSeq: 1, AWS: srv})
	if err != nil || len(changes) != 2 {
		t.Fatalf("Apply: %d changes, %v", len(changes), err)
	}
	hosts := make([]string, len(changes))
	for i, ch := range changes {
		hosts[i] = ch.Desired.Object["data"].(map[string]any)["host"].(string)
		if want := fakeaws.RecordSetResource(zoneID, hosts[i], "A", ""); ch.ResourceID != want {
			t.Fatalf("change to %s names %q, want %q (the zone's name resolved to its ID)", ch.Key, ch.ResourceID, want)
		}
	}
	untouched := ""
	for _, h := range []string{"svc-0.example.test", "svc-1.example.test", "svc-2.example.test"} {
		if !slices.Contains(hosts, h) {
			untouched = h
		}
	}

	// The controller first rewrites a set no change touched, then one change's set, then the other's.
	mark := srv.Recorder().Len()
	ip := func(i int) string { return changes[i].Desired.Object["data"].(map[string]any)["ip"].(string) }
	upsert(map[string]string{untouched: "10.0.9.9"})
	first := upsert(map[string]string{hosts[0]: ip(0), untouched: "10.0.9.8"})
	second := upsert(map[string]string{hosts[1]: ip(1)})
	snap, err := TakeSnapshot(srv, f.AWSKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	for i, ch := range changes {
		if ok, err := ch.Applied(snap); !ok {
			t.Errorf("change to %s not applied: %v (%s)", ch.Key, err, ch.Explain(snap))
		}
		var got []uint64
		for _, call := range srv.Recorder().Since(mark) {
			if ch.IsMutation(call) {
				got = append(got, call.Seq)
			}
		}
		want := []fakeaws.Call{first, second}[i]
		if len(got) != 1 || got[0] != want.Seq {
			t.Errorf("change to %s: its mutations are calls %v, want only call %d (the batch that holds %s)", ch.Key, got, want.Seq, hosts[i])
		}
	}
}

// startFakeRoute53 serves an in-process fakeaws (no throttling) to a Route53 client, signed in us-east-1 as
// the SDK signs Route53's global endpoint.
func startFakeRoute53(t *testing.T) (*fakeaws.Server, *route53.Client) {
	srv, err := fakeaws.New(fakeaws.Options{Profile: fakeaws.ProfileUnlimited, AccessKeyID: "AKIDTEST", SecretAccessKey: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv)
	t.Cleanup(h.Close)
	return srv, route53.NewFromConfig(aws.Config{Region: "us-east-1", BaseEndpoint: aws.String(h.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")})
}

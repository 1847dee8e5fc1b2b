package fakeaws_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/route53"
	r53types "github.com/aws/aws-sdk-go-v2/service/route53/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/restartsim/restartsim/fakeaws"
)

// lastCall is the last recorded call of op.
func lastCall(t *testing.T, e *env, op string) fakeaws.Call {
	t.Helper()
	calls := e.srv.Recorder().Calls()
	for i := len(calls) - 1; i >= 0; i-- {
		if calls[i].Operation == op {
			return calls[i]
		}
	}
	t.Fatalf("no %s recorded", op)
	return fakeaws.Call{}
}

func TestRecorderRoute53RecordSets(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "Example.com")
	if got, want := lastCall(t, e, "CreateHostedZone").HostedZoneID, strings.TrimPrefix(zone, "/hostedzone/"); got != want {
		t.Fatalf("CreateHostedZone recorded zone %q, want the zone it made, %q", got, want)
	}
	weighted := aSet("w.example.com", "10.0.0.2")
	weighted.SetIdentifier, weighted.Weight = aws.String("blue/1"), aws.Int64(10)
	if _, err := changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("WWW.Example.com", "10.0.0.1")),
		change(r53types.ChangeActionUpsert, txtSet("*.example.com", "owner")),
		change(r53types.ChangeActionCreate, weighted)); err != nil {
		t.Fatal(err)
	}
	call := lastCall(t, e, "ChangeResourceRecordSets")
	want := []fakeaws.RecordSetChange{
		{Action: "CREATE", Name: "www.example.com.", Type: "A"},
		{Action: "UPSERT", Name: `\052.example.com.`, Type: "TXT"},
		{Action: "CREATE", Name: "w.example.com.", Type: "A", SetIdentifier: "blue/1"},
	}
	if !slices.Equal(call.RecordSets, want) || call.RecordSetsOmitted != 0 {
		t.Fatalf("recorded sets %+v (%d omitted), want %+v", call.RecordSets, call.RecordSetsOmitted, want)
	}
	ids := call.Resources()
	for _, id := range []string{
		fakeaws.HostedZoneResource(zone),
		fakeaws.RecordSetResource(zone, "www.example.com", "a", ""),
		fakeaws.RecordSetResource(strings.TrimPrefix(zone, "/hostedzone/"), "*.EXAMPLE.com.", "TXT", ""),
		fakeaws.RecordSetResource(zone, "w.example.com.", "A", "blue/1"),
	} {
		if !slices.Contains(ids, id) {
			t.Errorf("Resources() = %q, missing %q", ids, id)
		}
	}
	for _, id := range []string{fakeaws.RecordSetResource(zone, "w.example.com.", "A", "blue"), fakeaws.RecordSetResource(zone, "www.example.com.", "AAAA", "")} {
		if slices.Contains(ids, id) {
			t.Errorf("Resources() = %q names %q, which the batch did not change", ids, id)
		}
	}

	// A refused batch changed nothing, so it records no sets.
	if _, err := changeSets(c, zone, change(r53types.ChangeActionCreate, aSet("www.example.com", "10.0.0.9"))); err == nil {
		t.Fatal("a second CREATE of a set succeeded")
	}
	if failed := lastCall(t, e, "ChangeResourceRecordSets"); failed.Outcome == fakeaws.OutcomeOK || len(failed.RecordSets) != 0 {
		t.Fatalf("refused batch recorded %+v", failed)
	}
}

func TestRecorderRoute53BoundsRecordedSets(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	c := e.route53Client()
	zone := createZone(t, c, "big.example")
	n := fakeaws.MaxRecordedSets + 5
	changes := make([]r53types.Change, n)
	for i := range changes { // aliases carry no records, so the batch's record limit does not stop them
		changes[i] = change(r53types.ChangeActionCreate, &r53types.ResourceRecordSet{Name: aws.String(strings.Repeat("a", i%60+1) + "." + string(rune('a'+i/60)) + ".big.example"),
			Type: r53types.RRTypeA, AliasTarget: &r53types.AliasTarget{HostedZoneId: aws.String("Z1H1FL5HABSF5"), DNSName: aws.String("lb-1.us-west-2.elb.amazonaws.com"), EvaluateTargetHealth: false}})
	}
	if _, err := changeSets(c, zone, changes...); err != nil {
		t.Fatal(err)
	}
	call := lastCall(t, e, "ChangeResourceRecordSets")
	if len(call.RecordSets) != fakeaws.MaxRecordedSets || call.RecordSetsOmitted != 5 {
		t.Fatalf("recorded %d sets, %d omitted; want %d and 5", len(call.RecordSets), call.RecordSetsOmitted, fakeaws.MaxRecordedSets)
	}
}

func TestRecorderResourcesOtherServices(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	sg := must[*ec2.CreateSecurityGroupOutput](t)(e.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String("pods"), Description: aws.String("d"), VpcId: aws.String(e.srv.DefaultVPCID())}))
	must[*ec2.AuthorizeSecurityGroupIngressOutput](t)(e.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{
		GroupId: sg.GroupId, IpPermissions: []ec2types.IpPermission{tcp(80, "10.0.0.0/16")}}))
	create := lastCall(t, e, "CreateSecurityGroup")
	if ids := create.Resources(); !slices.Equal(ids, []string{fakeaws.SecurityGroupResource(*sg.GroupId)}) {
		t.Errorf("CreateSecurityGroup names %q, want the group it made", ids)
	}
	auth := lastCall(t, e, "AuthorizeSecurityGroupIngress")
	if ids := auth.Resources(); !slices.Equal(ids, []string{fakeaws.SecurityGroupResource(*sg.GroupId)}) {
		t.Errorf("AuthorizeSecurityGroupIngress names %q, want its group", ids)
	}
	if _, err := e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupName: aws.String("pods")}); err != nil {
		t.Fatal(err)
	}
	del := lastCall(t, e, "DeleteSecurityGroup")
	if ids := del.Resources(); !slices.Equal(ids, []string{fakeaws.SecurityGroupResource(*sg.GroupId)}) {
		t.Errorf("DeleteSecurityGroup by name names %q, want the group it deleted", ids)
	}
	client := s3.NewFromConfig(e.cfg, func(o *s3.Options) { o.UsePathStyle = true })
	must[*s3.CreateBucketOutput](t)(client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("logs")}))
	bucket := lastCall(t, e, "CreateBucket")
	if ids := bucket.Resources(); !slices.Equal(ids, []string{fakeaws.S3BucketResource("logs")}) {
		t.Errorf("CreateBucket names %q, want its bucket", ids)
	}
	must[*route53.ListHostedZonesOutput](t)(e.route53Client().ListHostedZones(ctx, &route53.ListHostedZonesInput{}))
	list := lastCall(t, e, "ListHostedZones")
	if ids := list.Resources(); len(ids) != 0 {
		t.Errorf("ListHostedZones names %q, want none", ids)
	}
}

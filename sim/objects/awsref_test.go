package objects

import (
	"encoding/json"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/restartsim/restartsim/fakeaws"
)

// dnsState is an account with a public and a private zone of one name, a second zone, security groups
// (two named "shared" in different VPCs) and a bucket.
func dnsState(t0 time.Time) *fakeState {
	ttl, w := int64(300), int64(10)
	apex := fakeaws.RecordSet{Name: "example.com.", Type: "NS", TTL: &ttl, Values: []string{"ns-1.awsdns-01.com."}}
	return &fakeState{
		now: t0,
		instances: []fakeaws.Instance{
			{ID: "i-1", PrivateIP: "10.0.0.7", State: "running", InstanceType: "c5.xlarge", LaunchTime: t0},
			{ID: "i-2", PrivateIP: "10.0.0.8", State: "terminated"},
		},
		zones: []fakeaws.HostedZone{
			{ID: "ZPUBLIC", Name: "example.com.", RecordSetCount: 3, Tags: []fakeaws.Tag{{Key: "owner", Value: "dns"}}},
			{ID: "ZPRIVATE", Name: "example.com.", PrivateZone: true, VPCs: []fakeaws.ZoneVPC{{Region: "us-west-2", ID: "vpc-1"}}},
			{ID: "ZOTHER", Name: "other.org."},
		},
		sets: map[string][]fakeaws.RecordSet{
			"ZPUBLIC": {apex,
				{Name: "api.example.com.", Type: "A", SetIdentifier: "blue", Weight: &w, TTL: &ttl, Values: []string{"10.0.0.1"}},
				{Name: `\052.example.com.`, Type: "A", AliasTarget: &fakeaws.AliasTarget{HostedZoneID: "Z1", DNSName: "lb.elb.amazonaws.com.", EvaluateTargetHealth: true}}},
			"ZOTHER": {{Name: "www.other.org.", Type: "TXT", TTL: &ttl, Values: []string{`"heritage=external-dns"`}}},
		},
		sgs: []fakeaws.SecurityGroup{
			{ID: "sg-1", Name: "web", VPCID: "vpc-1", Ingress: []fakeaws.Rule{{Protocol: "tcp", FromPort: 443, ToPort: 443, CIDR: "0.0.0.0/0"}}},
			{ID: "sg-2", Name: "shared", VPCID: "vpc-1"}, {ID: "sg-3", Name: "shared", VPCID: "vpc-2"},
		},
		buckets: []fakeaws.S3Bucket{{Name: "baselines", CreationDate: t0}},
	}
}

// kindGroup is a ConfigMap group whose object names an AWS resource through ref, whose expressions read
// object.data.
func kindGroup(name string, ref AWSRef, data map[string]string, invariant string) Group {
	d, err := json.Marshal(data)
	if err != nil {
		panic(err) // a map of strings always marshals
	}
	return Group{Name: name, Count: 1, AWS: &ref, Invariant: invariant,
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "` + name + `-{{.Index}}"}, "data": ` + string(d) + `}`)}
}

func TestConditionsOverRoute53EC2AndS3Kinds(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	zone := func(field string) AWSRef {
		r := AWSRef{Kind: AWSHostedZone}
		setField(&r, field, "object.data.zone")
		return r
	}
	record := AWSRef{Kind: AWSRecordSet, Zone: "object.data.zone", Name: "object.data.name", Type: "object.data.type", SetIdentifier: "object.data.id"}
	recordNoID := AWSRef{Kind: AWSRecordSet, Zone: "object.data.zone", Name: "object.data.name", Type: "object.data.type"}
	groups := []Group{
		kindGroup("zone-by-id", zone("id"), map[string]string{"zone": "/hostedzone/ZPUBLIC"},
			`aws != null && !aws.privateZone && aws.recordSets.size() == 3 && aws.tags.exists(t, t.key == "owner")`),
		kindGroup("zone-by-name", zone("name"), map[string]string{"zone": "Other.Org"}, `aws != null && aws.id == "ZOTHER"`),
		kindGroup("zone-name-shared", zone("name"), map[string]string{"zone": "example.com"}, `aws == null`),
		kindGroup("weighted", record, map[string]string{"zone": "ZPUBLIC", "name": "API.example.com", "type": "a", "id": "blue"},
			`aws != null && aws.weight == 10 && aws.values == ["10.0.0.1"] && aws.zoneName == "example.com."`),
		kindGroup("wildcard-alias", recordNoID, map[string]string{"zone": "ZPUBLIC", "name": "*.example.com", "type": "A"},
			`aws != null && aws.aliasTarget.evaluateTargetHealth && !has(aws.ttl)`),
		kindGroup("record-by-zone-name", recordNoID, map[string]string{"zone": "other.org.", "name": "www.other.org", "type": "TXT"},
			`aws != null && aws.values[0].contains("external-dns") && aws.zoneId == "ZOTHER"`),
		kindGroup("record-missing", recordNoID, map[string]string{"zone": "ZPUBLIC", "name": "nope.example.com", "type": "A"}, `aws == null`),
		kindGroup("sg-by-id", AWSRef{Kind: AWSSecurityGroup, ID: "object.data.sg"}, map[string]string{"sg": "sg-1"},
			`aws != null && aws.ingress.exists(r, r.fromPort == 443 && r.cidr == "0.0.0.0/0")`),
		kindGroup("sg-by-name", AWSRef{Kind: AWSSecurityGroup, Name: "object.data.sg"}, map[string]string{"sg": "web"}, `aws != null && aws.id == "sg-1"`),
		kindGroup("sg-name-shared", AWSRef{Kind: AWSSecurityGroup, Name: "object.data.sg"}, map[string]string{"sg": "shared"}, `aws == null`),
		kindGroup("instance-by-ip", AWSRef{Kind: AWSEC2Instance, Name: "object.data.hostIP"}, map[string]string{"hostIP": "10.0.0.7"},
			`aws != null && aws.id == "i-1" && aws.state == "running" && aws.instanceType == "c5.xlarge"`),
		kindGroup("instance-by-id", AWSRef{Kind: AWSEC2Instance, ID: "object.data.id"}, map[string]string{"id": "i-2"}, `aws != null && aws.state == "terminated"`),
		kindGroup("instance-gone", AWSRef{Kind: AWSEC2Instance, Name: "object.data.hostIP"}, map[string]string{"hostIP": "10.0.0.9"}, `aws == null`),
		kindGroup("bucket", AWSRef{Kind: AWSS3Bucket, Name: "object.data.bucket"}, map[string]string{"bucket": "baselines"},
			`aws != null && aws.creationDate == timestamp("2026-01-02T03:04:05Z")`),
	}
	f := compile(t, groups...)
	snap, err := TakeSnapshot(dnsState(t0), f.AWSKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for _, g := range f.Groups() {
		u, err := f.Render(testEnv, g, 0)
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, u)
	}
	if st := f.Check(objs, snap); !st.Holds() {
		t.Errorf("conditions do not hold: %v", st.Violations)
	}
	// A changed record set breaks its invariant, which names what it read.
	state := dnsState(t0)
	state.sets["ZPUBLIC"][1].Values = []string{"10.0.0.9"}
	later, _ := TakeSnapshot(state, AWSRecordSet)
	if st := f.Check(objs[3:4], later); len(st.Violations) != 1 {
		t.Errorf("violations after the record set changed: %v, want one", st.Violations)
	}
}

func setField(r *AWSRef, field, text string) {
	switch field {
	case "id":
		r.ID = text
	case "name":
		r.Name = text
	}
}

func TestAWSRefValidation(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  AWSRef
		path string
		msg  []string
	}{
		{"unknown kind", AWSRef{Kind: "dynamoTable", Name: "object.spec.name"}, "fleet.objects[0].aws.kind", []string{`"dynamoTable" is not one of`, "route53RecordSet"}},
		{"record set without type", AWSRef{Kind: AWSRecordSet, Zone: `"Z1"`, Name: "object.spec.name"}, "fleet.objects[0].aws.type",
			[]string{"required: a route53RecordSet is found by zone, name and type"}},
		{"record set by arn", AWSRef{Kind: AWSRecordSet, ARN: "object.spec.name"}, "fleet.objects[0].aws.arn", []string{"give zone, name and type"}},
		{"zone by id and name", AWSRef{Kind: AWSHostedZone, ID: `"Z1"`, Name: "object.spec.name"}, "fleet.objects[0].aws", []string{"give one of id and name"}},
		{"zone by nothing", AWSRef{Kind: AWSHostedZone}, "fleet.objects[0].aws", []string{"give one of id and name"}},
		{"bucket by id", AWSRef{Kind: AWSS3Bucket, ID: "object.spec.name"}, "fleet.objects[0].aws.id", []string{"give name"}},
		{"security group by zone", AWSRef{Kind: AWSSecurityGroup, Zone: "object.spec.name"}, "fleet.objects[0].aws.zone", []string{"give one of id and name"}},
		{"set identifier not a string", AWSRef{Kind: AWSRecordSet, Zone: `"Z1"`, Name: "object.spec.name", Type: `"A"`, SetIdentifier: "object.spec.port"},
			"fleet.objects[0].aws.setIdentifier", []string{"must be a string expression"}},
		{"record type not Route53's", AWSRef{Kind: AWSRecordSet, Zone: `"Z1"`, Name: "object.spec.name", Type: `"BOGUS"`}, "fleet.objects[0].aws.type",
			[]string{`"BOGUS" is not a Route53 record type (A, AAAA, CAA`}},
		{"type reads aws", AWSRef{Kind: AWSRecordSet, Zone: `"Z1"`, Name: "object.spec.name", Type: `aws.type`}, "fleet.objects[0].aws.type", []string{"does not compile"}},
		{"unknown field of the kind", AWSRef{Kind: AWSS3Bucket, Name: "object.spec.name"}, "fleet.objects[0].invariant", []string{"unknown field 'healthCheck'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := widgets(1)
			ref := tc.ref
			g.AWS = &ref
			_, err := Compile(catalog(t), []Group{g}, "fleet.objects")
			wantError(t, err, tc.path, tc.msg...)
		})
	}
}

func TestSecurityGroupOfTheRealServer(t *testing.T) {
	srv, err := fakeaws.New(fakeaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sg, err := srv.CreateSecurityGroup("web", "web tier", "")
	if err != nil {
		t.Fatal(err)
	}
	f := compile(t, kindGroup("sg", AWSRef{Kind: AWSSecurityGroup, Name: "object.data.sg"}, map[string]string{"sg": "web", "id": sg.ID},
		`aws != null && aws.id == object.data.id && aws.description == "web tier"`))
	snap, err := TakeSnapshot(srv, f.AWSKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	obj, err := f.Render(testEnv, "sg", 0)
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Check([]*unstructured.Unstructured{obj}, snap); !st.Holds() {
		t.Errorf("the security group's condition does not hold: %v", st.Violations)
	}
}

// A change to an object whose resource no call names (no aws mapping, or an EC2 instance) is applied by
// any call of its mutations; one to a security group's object only by a call naming it.
func TestUnnamedByCalls(t *testing.T) {
	plain := kindGroup("plain", AWSRef{}, map[string]string{}, "")
	plain.AWS = nil
	f := compile(t, plain,
		kindGroup("instance", AWSRef{Kind: AWSEC2Instance, Name: "object.data.ip"}, map[string]string{"ip": "10.0.0.7"}, ""),
		kindGroup("sg", AWSRef{Kind: AWSSecurityGroup, ID: "object.data.sg"}, map[string]string{"sg": "sg-1"}, ""))
	for name, want := range map[string]bool{"plain": true, "instance": true, "sg": false} {
		if got := (&ObjectChange{g: f.byName[name]}).UnnamedByCalls(); got != want {
			t.Errorf("group %s: UnnamedByCalls = %v, want %v", name, got, want)
		}
	}
}

package objects

import (
	"slices"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestResourceIDMatchesTheCallLog checks that an object's resource identity is one the recorded call that
// mutates the resource names, kind by kind, and that a call on a neighbouring resource does not.
func TestResourceIDMatchesTheCallLog(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	record := AWSRef{Kind: AWSRecordSet, Zone: "object.data.zone", Name: "object.data.name", Type: "object.data.type", SetIdentifier: "object.data.id"}
	recordNoID := AWSRef{Kind: AWSRecordSet, Zone: "object.data.zone", Name: "object.data.name", Type: "object.data.type"}
	rrset := func(zone, name, typ, id string) fakeaws.Call {
		return fakeaws.Call{Service: "route53", Operation: "ChangeResourceRecordSets", HostedZoneID: zone,
			RecordSets: []fakeaws.RecordSetChange{{Action: "UPSERT", Name: name, Type: typ, SetIdentifier: id}}}
	}
	tests := []struct {
		name        string
		ref         AWSRef
		data        map[string]string
		want        string       // "" when the object's resource cannot be resolved
		call, other fakeaws.Call // the mutating call names the resource; other does not
	}{
		{"target group by arn", AWSRef{Kind: AWSTargetGroup, ARN: "object.data.arn"}, map[string]string{"arn": "arn:tg"}, "arn:tg",
			fakeaws.Call{TargetGroupARN: "arn:tg"}, fakeaws.Call{TargetGroupARN: "arn:tg2"}},
		{"zone by id", AWSRef{Kind: AWSHostedZone, ID: "object.data.zone"}, map[string]string{"zone": "/hostedzone/ZPUBLIC"}, fakeaws.HostedZoneResource("ZPUBLIC"),
			fakeaws.Call{HostedZoneID: "ZPUBLIC"}, fakeaws.Call{HostedZoneID: "ZOTHER"}},
		{"zone by name", AWSRef{Kind: AWSHostedZone, Name: "object.data.zone"}, map[string]string{"zone": "Other.Org"}, fakeaws.HostedZoneResource("ZOTHER"),
			fakeaws.Call{HostedZoneID: "ZOTHER"}, fakeaws.Call{HostedZoneID: "ZPUBLIC"}},
		{"zone name two zones share", AWSRef{Kind: AWSHostedZone, Name: "object.data.zone"}, map[string]string{"zone": "example.com"}, "",
			fakeaws.Call{}, fakeaws.Call{HostedZoneID: "ZPUBLIC"}},
		{"weighted record by zone id", record, map[string]string{"zone": "ZPUBLIC", "name": "API.example.com", "type": "a", "id": "blue"},
			fakeaws.RecordSetResource("ZPUBLIC", "api.example.com.", "A", "blue"),
			rrset("ZPUBLIC", "api.example.com.", "A", "blue"), rrset("ZPUBLIC", "api.example.com.", "A", "green")},
		{"wildcard record", recordNoID, map[string]string{"zone": "/hostedzone/ZPUBLIC", "name": "*.example.com", "type": "A"},
			fakeaws.RecordSetResource("ZPUBLIC", `\052.example.com.`, "A", ""),
			rrset("ZPUBLIC", `\052.example.com.`, "A", ""), rrset("ZPUBLIC", `\052.example.com.`, "AAAA", "")},
		{"record by zone name", recordNoID, map[string]string{"zone": "other.org.", "name": "www.other.org", "type": "TXT"},
			fakeaws.RecordSetResource("ZOTHER", "www.other.org.", "TXT", ""),
			rrset("ZOTHER", "www.other.org.", "TXT", ""), rrset("ZPUBLIC", "www.other.org.", "TXT", "")},
		{"record not made yet", recordNoID, map[string]string{"zone": "other.org", "name": "new.other.org", "type": "A"},
			fakeaws.RecordSetResource("ZOTHER", "new.other.org.", "A", ""),
			rrset("ZOTHER", "new.other.org.", "A", ""), rrset("ZOTHER", "www.other.org.", "A", "")},
		{"record in an unknown zone", recordNoID, map[string]string{"zone": "nowhere.net", "name": "a.nowhere.net", "type": "A"}, "",
			fakeaws.Call{}, rrset("nowhere.net", "a.nowhere.net.", "A", "")},
		{"security group by id", AWSRef{Kind: AWSSecurityGroup, ID: "object.data.sg"}, map[string]string{"sg": "sg-1"}, fakeaws.SecurityGroupResource("sg-1"),
			fakeaws.Call{SecurityGroupID: "sg-1"}, fakeaws.Call{SecurityGroupID: "sg-2"}},
		{"security group by name", AWSRef{Kind: AWSSecurityGroup, Name: "object.data.sg"}, map[string]string{"sg": "web"}, fakeaws.SecurityGroupResource("sg-1"),
			fakeaws.Call{SecurityGroupID: "sg-1"}, fakeaws.Call{SecurityGroupID: "sg-2"}},
		{"bucket", AWSRef{Kind: AWSS3Bucket, Name: "object.data.bucket"}, map[string]string{"bucket": "baselines"}, fakeaws.S3BucketResource("baselines"),
			fakeaws.Call{S3Bucket: "baselines"}, fakeaws.Call{S3Bucket: "other"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := compile(t, kindGroup("g", tt.ref, tt.data, ""))
			snap, err := TakeSnapshot(dnsState(t0), f.AWSKinds()...)
			if err != nil {
				t.Fatal(err)
			}
			obj, err := f.Render(testEnv, "g", 0)
			if err != nil {
				t.Fatal(err)
			}
			got := f.ResourceID(obj, snap)
			if got != tt.want {
				t.Fatalf("ResourceID = %q, want %q", got, tt.want)
			}
			if got == "" {
				return
			}
			if ids := tt.call.Resources(); !slices.Contains(ids, got) {
				t.Errorf("the mutating call names %q, not %q", ids, got)
			}
			if ids := tt.other.Resources(); slices.Contains(ids, got) {
				t.Errorf("a call on another resource names %q, which holds %q", ids, got)
			}
		})
	}
}

package measure

import (
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// A change to a Route53 record set, a security group or an S3 bucket is timed by the first successful call
// of its mutations whose recorded resources hold the change's resource: for a record set, the batch that
// changed it, not an earlier batch of the same zone.
func TestObjectChangeFirstMutationOfOtherKinds(t *testing.T) {
	at := func(s float64) time.Time { return time.Unix(0, 0).Add(time.Duration(s * float64(time.Second))) }
	batch := func(s float64, outcome string, names ...string) fakeaws.Call {
		c := fakeaws.Call{Time: at(s), Service: "route53", Operation: "ChangeResourceRecordSets", HostedZoneID: "Z1", Outcome: outcome}
		for _, n := range names {
			c.RecordSets = append(c.RecordSets, fakeaws.RecordSetChange{Action: "UPSERT", Name: n, Type: "A"})
		}
		return c
	}
	tests := []struct {
		name     string
		resource string
		mutation string
		calls    []fakeaws.Call
		want     float64 // TTFMR, from the origin at 2 s
	}{
		{"record set", fakeaws.RecordSetResource("/hostedzone/Z1", "svc.example.test", "A", ""), "ChangeResourceRecordSets", []fakeaws.Call{
			batch(3, fakeaws.OutcomeOK, "other.example.test."),
			batch(4, fakeaws.OutcomeThrottled, "svc.example.test."),
			batch(6, fakeaws.OutcomeOK, "other.example.test.", "svc.example.test."),
		}, 4},
		{"security group", fakeaws.SecurityGroupResource("sg-1"), "AuthorizeSecurityGroupIngress", []fakeaws.Call{
			{Time: at(3), Operation: "AuthorizeSecurityGroupIngress", SecurityGroupID: "sg-2", Outcome: fakeaws.OutcomeOK},
			{Time: at(5), Operation: "AuthorizeSecurityGroupIngress", SecurityGroupID: "sg-1", Outcome: fakeaws.OutcomeOK},
		}, 3},
		{"bucket", fakeaws.S3BucketResource("logs"), "PutObject", []fakeaws.Call{
			{Time: at(3), Operation: "PutObject", S3Bucket: "other", Outcome: fakeaws.OutcomeOK},
			{Time: at(4.5), Operation: "PutObject", S3Bucket: "logs", Outcome: fakeaws.OutcomeOK},
		}, 2.5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seen := 15.0
			in := &Input{
				Origin: time.Unix(0, 0), End: 20,
				Restarts: []Restart{{Stopped: 1, Downtime: 1, Started: 2, At: 3, Mode: "crash"}},
				ChurnAt:  []float64{1.5},
				Calls:    tt.calls,
				Changes: []Change{{ID: "patch-0001", Kind: "patch", Object: "g/ns/o-0", ResourceID: tt.resource,
					Mutations: []string{tt.mutation}, At: 1.5, Observed: &seen}},
			}
			if got := Run(in).Summary.TTFMRSeconds; got == nil || *got != tt.want {
				t.Errorf("TTFMR = %v, want %v", deref(got), tt.want)
			}
		})
	}
}

// A change to an object no AWS resource stands for (a Pod a node provisioner places) is timed by the first
// successful call of its mutations after it, whatever that call names; without AnyResource, by when AWS
// was seen to show it.
func TestObjectChangeFirstMutationOfAnyResource(t *testing.T) {
	at := func(s float64) time.Time { return time.Unix(0, 0).Add(time.Duration(s * float64(time.Second))) }
	calls := []fakeaws.Call{
		{Time: at(1), Service: "ec2", Operation: "CreateFleet", Outcome: fakeaws.OutcomeOK}, // before the change
		{Time: at(3), Service: "ec2", Operation: "CreateFleet", Outcome: fakeaws.OutcomeThrottled},
		{Time: at(3.5), Service: "ec2", Operation: "CreateTags", Outcome: fakeaws.OutcomeOK},
		{Time: at(4), Service: "ec2", Operation: "CreateFleet", Outcome: fakeaws.OutcomeOK},
	}
	for _, tt := range []struct {
		any  bool
		want float64
	}{{true, 2}, {false, 13}} {
		seen := 15.0
		in := &Input{
			Origin: time.Unix(0, 0), End: 20,
			Restarts: []Restart{{Stopped: 1, Downtime: 1, Started: 2, At: 3, Mode: "crash"}},
			ChurnAt:  []float64{1.5},
			Calls:    calls,
			Changes: []Change{{ID: "create-pods-0001", Kind: "create", Object: "pods/ns/app-0", AnyResource: tt.any,
				Mutations: []string{"CreateFleet", "RunInstances"}, At: 1.5, Observed: &seen}},
		}
		if got := Run(in).Summary.TTFMRSeconds; got == nil || *got != tt.want {
			t.Errorf("AnyResource %v: TTFMR = %v, want %v", tt.any, deref(got), tt.want)
		}
	}
}

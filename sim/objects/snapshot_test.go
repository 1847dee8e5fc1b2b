package objects

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/restartsim/restartsim/fakeaws"
)

// lbState is one load balancer, becoming active at t0+5s, with a listener and two rules.
func lbState(t0 time.Time) *fakeState {
	return &fakeState{
		now: t0,
		lbs: []fakeaws.LoadBalancer{{ARN: "arn:lb", Name: "lb-1", Type: "application", CreatedAt: t0, ActiveAt: t0.Add(5 * time.Second)}},
		ls: map[string][]fakeaws.Listener{"arn:lb": {{ARN: "arn:l", LoadBalancerARN: "arn:lb", Protocol: "HTTP", Port: 80,
			DefaultActions: []fakeaws.Action{{Type: "forward", TargetGroupARN: "arn:tg"}}}}},
		rules: map[string][]fakeaws.ListenerRule{"arn:l": {
			{ARN: "arn:r1", ListenerARN: "arn:l", Priority: 1, Conditions: []fakeaws.RuleCondition{{Field: "path-pattern", Values: []string{"/a"}}},
				Actions: []fakeaws.Action{{Type: "forward", TargetGroupARN: "arn:tg"}}},
			{ARN: "arn:rd", ListenerARN: "arn:l", IsDefault: true},
		}},
	}
}

// refGroup is a ConfigMap group whose one object names an AWS resource of kind by data.ref.
func refGroup(name, kind, byField, ref, condition string) Group {
	return Group{Name: name, Count: 1, AWS: &AWSRef{Kind: kind}, Invariant: condition,
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "` + name + `-{{.Index}}"}, "data": {"ref": "` + ref + `"}}`),
	}.withRef(byField)
}

func (g Group) withRef(byField string) Group {
	if byField == "name" {
		g.AWS.Name = "string(object.data.ref)"
	} else {
		g.AWS.ARN = "string(object.data.ref)"
	}
	return g
}

func TestSnapshotResolvesEveryAWSKind(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	state := lbState(t0)
	state.tgs = []fakeaws.TargetGroup{{ARN: "arn:tg", Name: "tg-1", Port: 80, TargetType: "ip"}}
	state.targets = map[string][]fakeaws.TargetHealth{"arn:tg": {{Target: fakeaws.Target{ID: "10.0.0.1", Port: 80}, State: "healthy", HealthyAt: t0}}}
	f := compile(t,
		refGroup("tgs", AWSTargetGroup, "name", "tg-1", `aws.targets.exists(t, t.target.id == "10.0.0.1" && t.state == "healthy" && !has(t.deregisteredAt))`),
		refGroup("lbs", AWSLoadBalancer, "name", "lb-1", `aws.state == "provisioning" && aws.listeners.exists(l, l.port == 80)`),
		refGroup("listeners", AWSListener, "arn", "arn:l", `aws.defaultActions[0].targetGroupArn == "arn:tg" && aws.rules.size() == 2`),
		refGroup("rules", AWSRule, "arn", "arn:r1", `aws.conditions[0].values == ["/a"] && aws.actions[0].targetGroupArn == "arn:tg" && !has(aws.actions[0].fixedResponse)`),
		refGroup("missing", AWSTargetGroup, "arn", "arn:nope", `aws == null`),
	)
	snap, err := TakeSnapshot(state, f.AWSKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Len() != 5 || !snap.Time.Equal(t0) {
		t.Errorf("snapshot of %d resources at %v, want 5 at %v", snap.Len(), snap.Time, t0)
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
		t.Errorf("invariants do not hold: %v", st.Violations)
	}
	if got := f.ResourceID(objs[0], snap); got != "arn:tg" {
		t.Errorf("ARN of the target group found by name = %q, want arn:tg", got)
	}

	state.now = t0.Add(10 * time.Second) // the load balancer is active now
	later, _ := TakeSnapshot(state, AWSLoadBalancer)
	if st := f.Check(objs[1:2], later); len(st.Violations) != 1 {
		t.Errorf("violations at +10s %v, want the load balancer's state", st.Violations)
	}
	if later.Len() != 1 {
		t.Errorf("a snapshot of load balancers only holds %d resources", later.Len())
	}
}

func TestSnapshotRefusesUnknownKinds(t *testing.T) {
	if _, err := TakeSnapshot(&fakeState{}, "bucket"); err == nil || !strings.Contains(err.Error(), "unknown AWS kind") {
		t.Errorf("TakeSnapshot(bucket) = %v, want an unknown kind error", err)
	}
}

func TestSnapshotOfTheRealServer(t *testing.T) {
	srv, err := fakeaws.New(fakeaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := TakeSnapshot(srv)
	if err != nil || snap.Len() != 1 {
		t.Errorf("snapshot of a fresh server: %d resources, %v; want its default security group alone", snap.Len(), err)
	}
}

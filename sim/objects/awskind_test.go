package objects

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// queues is a test-only AWS kind: a message queue, found by name, which a test's AWS state lists.
type queues struct{ kindInfo }

// queueView is a queue's `aws` value.
type queueView struct {
	Name     string    `json:"name"`
	Depth    int       `json:"depth"`
	Created  time.Time `json:"created"`
	Consumer *string   `json:"consumer,omitempty"`
}

// queueState is an AWS state that also holds queues.
type queueState struct {
	*fakeState
	queues []queueView
}

const testQueue = "testQueue"

func (queues) callName(_ *Snapshot, k resourceKey) string { return "queue/" + k.value }
func (queues) list(r *stateReads, add addFunc) error {
	qs, ok := r.src.(queueState)
	if !ok {
		return nil
	}
	for _, q := range qs.queues {
		add(&q, byKey("name", q.Name))
	}
	return nil
}

// TestKindAddedThroughTheTable adds a kind through the table alone and checks that a condition over it
// compiles against its schema, reads its resources from a snapshot, and that calls name it.
func TestKindAddedThroughTheTable(t *testing.T) {
	awsKinds.register(queues{kindInfo{kind: testQueue, viewType: reflect.TypeFor[queueView](), ways: waysOf("name")}})
	t.Cleanup(func() { awsKinds.unregister(testQueue) })

	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ref := AWSRef{Kind: testQueue, Name: "object.data.queue"}
	f := compile(t,
		kindGroup("jobs", ref, map[string]string{"queue": "jobs"}, `aws != null && aws.depth < 10 && aws.created == timestamp("2026-01-02T03:04:05Z")`),
		kindGroup("gone", ref, map[string]string{"queue": "gone"}, `aws == null`))
	if got := f.AWSKinds(); !reflect.DeepEqual(got, []string{testQueue}) {
		t.Fatalf("AWSKinds = %v, want [%s]", got, testQueue)
	}
	state := queueState{fakeState: &fakeState{now: t0}, queues: []queueView{{Name: "jobs", Depth: 3, Created: t0}}}
	snap, err := TakeSnapshot(state, f.AWSKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Len() != 1 {
		t.Errorf("snapshot holds %d resources, want 1", snap.Len())
	}
	jobs, errJobs := f.Render(testEnv, "jobs", 0)
	gone, errGone := f.Render(testEnv, "gone", 0)
	if errJobs != nil || errGone != nil {
		t.Fatal(errJobs, errGone)
	}
	objs := []*unstructured.Unstructured{jobs, gone}
	if st := f.Check(objs, snap); !st.Holds() {
		t.Errorf("conditions do not hold: %v", st.Violations)
	}
	if got := f.ResourceID(jobs, snap); got != "queue/jobs" {
		t.Errorf("ResourceID = %q, want queue/jobs", got)
	}

	state.queues[0].Depth = 12
	later, err := TakeSnapshot(state, testQueue)
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Check(objs[:1], later); len(st.Violations) != 1 {
		t.Errorf("violations after the queue grew: %v, want one", st.Violations)
	}

	// The kind's schema types the conditions: a field the queue does not have does not compile.
	_, err = Compile(catalog(t), []Group{kindGroup("typo", ref, map[string]string{"queue": "jobs"}, `aws.length > 0`)}, "fleet.objects")
	wantError(t, err, "fleet.objects[0].invariant", "unknown field 'length'")
}

func TestUnknownKindIsRefused(t *testing.T) {
	_, err := Compile(catalog(t), []Group{kindGroup("q", AWSRef{Kind: testQueue, Name: `"jobs"`}, map[string]string{}, "")}, "fleet.objects")
	wantError(t, err, "fleet.objects[0].aws.kind", `"testQueue" is not one of ec2Instance, listener, loadBalancer, route53HostedZone`)
	if _, err := TakeSnapshot(&fakeState{}, testQueue); err == nil {
		t.Error("TakeSnapshot of an unregistered kind: want an error")
	}
}

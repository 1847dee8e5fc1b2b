package objects

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/restartsim/restartsim/fakeaws"
)

// benchFleet is 1,000 Widgets, ready, each with its target group (three targets) in AWS.
func benchFleet(b *testing.B) (*CompiledGroups, []*unstructured.Unstructured, *fakeState) {
	f := compile(b, widgets(1000))
	state := &fakeState{targets: map[string][]fakeaws.TargetHealth{}}
	objs := make([]*unstructured.Unstructured, 1000)
	for i := range objs {
		objs[i] = widget(b, f, i, "True")
		tg := targetGroupOf(objs[i], "/healthz")
		state.tgs = append(state.tgs, tg)
		for j := range 3 {
			state.targets[tg.ARN] = append(state.targets[tg.ARN], fakeaws.TargetHealth{Target: fakeaws.Target{ID: "10.0.0." + itoa(j), Port: 80}, State: "healthy"})
		}
	}
	return f, objs, state
}

// BenchmarkPoll1000 is one poll of 1,000 objects: a snapshot and every Ready and Invariant condition.
func BenchmarkPoll1000(b *testing.B) {
	f, objs, state := benchFleet(b)
	for b.Loop() {
		snap, err := TakeSnapshot(state, f.AWSKinds()...)
		if err != nil {
			b.Fatal(err)
		}
		if st := f.Check(objs, snap); !st.Holds() {
			b.Fatalf("conditions do not hold: %v", st.Violations)
		}
	}
}

// BenchmarkCheck1000 evaluates 1,000 objects' conditions against a snapshot whose AWS values are built.
func BenchmarkCheck1000(b *testing.B) {
	f, objs, state := benchFleet(b)
	snap, _ := TakeSnapshot(state, f.AWSKinds()...)
	f.Check(objs, snap)
	for b.Loop() {
		f.Check(objs, snap)
	}
}

// BenchmarkRender renders one Widget (name, awsName, typed port).
func BenchmarkRender(b *testing.B) {
	f := compile(b, widgets(1000))
	i := 0
	for b.Loop() {
		if _, err := f.Render(testEnv, "widgets", i%1000); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

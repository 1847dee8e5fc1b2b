package targets

import (
	"reflect"
	"testing"
)

func TestDiff(t *testing.T) {
	a, b, c := Target{ID: "10.0.0.1", Port: 80}, Target{ID: "10.0.0.2", Port: 80}, Target{ID: "10.0.0.3", Port: 80}
	a81 := Target{ID: "10.0.0.1", Port: 81}
	tests := []struct {
		name        string
		desired     []Target
		current     []Health
		add, remove []Target
	}{
		{name: "empty"},
		{name: "all new", desired: []Target{b, a}, add: []Target{a, b}},
		{name: "exact difference", desired: []Target{a, c},
			current: []Health{{Target: a, State: StateHealthy}, {Target: b, State: StateHealthy}},
			add:     []Target{c}, remove: []Target{b}},
		{name: "port matters", desired: []Target{a81}, current: []Health{{Target: a, State: StateHealthy}},
			add: []Target{a81}, remove: []Target{a}},
		{name: "draining is re-registered, never deregistered", desired: []Target{a},
			current: []Health{{Target: a, State: StateDraining}, {Target: b, State: StateDraining}}, add: []Target{a}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			add, remove := Diff(tt.desired, tt.current)
			if !reflect.DeepEqual(add, tt.add) || !reflect.DeepEqual(remove, tt.remove) {
				t.Fatalf("add %v remove %v; want %v %v", add, remove, tt.add, tt.remove)
			}
		})
	}
}

func TestChunks(t *testing.T) {
	ts := make([]Target, 401)
	got := Chunks(ts, ChunkSize)
	if len(got) != 3 || len(got[0]) != 200 || len(got[1]) != 200 || len(got[2]) != 1 {
		t.Fatalf("chunks %d", len(got))
	}
	if Chunks(nil, ChunkSize) != nil {
		t.Fatal("nil input")
	}
}

package app

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"
)

func TestSweepScenarioFor(t *testing.T) {
	o := &sweepOptions{File: filepath.Join("..", "..", "..", "scenarios", "scale-sweep.yaml"), Sizes: []int{10000, 100}}
	if err := o.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	if o.Sizes[0] != 100 {
		t.Fatalf("sizes not sorted: %v", o.Sizes)
	}
	for _, tc := range []struct{ size, namespaces int }{{100, 1}, {10000, 20}} {
		sc, err := o.scenarioFor(tc.size)
		if err != nil {
			t.Fatal(err)
		}
		if sc.Fleet.TargetGroupBindings != tc.size || sc.Fleet.Namespaces != tc.namespaces {
			t.Errorf("size %d: fleet %+v, want %d namespaces", tc.size, sc.Fleet, tc.namespaces)
		}
		if want := "scale-sweep-" + itoa(tc.size); sc.Name != want {
			t.Errorf("name %q, want %q", sc.Name, want)
		}
		if len(sc.Controller.Strategies) != 3 || sc.TimeScale != 20 {
			t.Errorf("template not kept: %d strategies, timeScale %v", len(sc.Controller.Strategies), sc.TimeScale)
		}
	}
	bad := &sweepOptions{File: o.File, Sizes: []int{0}}
	if err := bad.Validate(context.Background()); err == nil {
		t.Error("size 0 accepted")
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

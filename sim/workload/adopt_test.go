package workload_test

import (
	"context"
	"errors"
	"testing"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/workload"
)

// TestAdoptActsOnTheCreatedFleet: a fleet planned again from the same spec and seed adopts the created
// one without writing, and its mutations act on the existing objects and target groups.
func TestAdoptActsOnTheCreatedFleet(t *testing.T) {
	k8s := cluster(t).Client
	spec := workload.Spec{TGBs: 6, Namespaces: 1, PodsPerService: 2, InstanceShare: 0.3, NetworkingShare: 0.5, Nodes: 2}
	tf := createFleet(t, spec, 41)
	ctx := context.Background()
	before := tf.desired(t)

	again := workload.Plan(tf.Spec, seeded(41))
	opts := workload.Options{Client: k8s, AWS: tf.aws, Labels: tf.run}
	if err := again.Adopt(ctx, tf.FleetPlan, opts); err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.Adopt(ctx, tf.FleetPlan, opts); err == nil {
		t.Fatal("a live fleet adopted twice")
	}
	if got := tf.desired(t); len(got) != len(before) {
		t.Fatalf("Adopt wrote: %d bindings, had %d", len(got), len(before))
	}
	for i, tg := range again.TGBs {
		if tg.TargetGroupARN == "" || tg.TargetGroupARN != tf.TGBs[i].TargetGroupARN {
			t.Fatalf("TGB %s: ARN %q, created %q", tg.Key(), tg.TargetGroupARN, tf.TGBs[i].TargetGroupARN)
		}
	}

	key := again.ChooseTGBs(seeded(5), 1, func(i workload.TGBInfo) bool { return i.TargetType == v1beta1.TargetTypeIP })[0]
	ch, err := again.ScaleService(ctx, key, 1)
	if err != nil {
		t.Fatal(err)
	}
	after := tf.desired(t)
	if ch.TargetGroupARN != before[key].TargetGroupARN || len(after[key].Targets) != len(before[key].Targets)+1 {
		t.Fatalf("scale-up on the adopted fleet: change %+v, targets %v → %v", ch, before[key].Targets, after[key].Targets)
	}
	if _, err := again.AddTGB(ctx); err != nil { // needs the adopted security groups
		t.Fatalf("AddTGB on the adopted fleet: %v", err)
	}
}

func TestAdoptRefusesOtherFleets(t *testing.T) {
	k8s := cluster(t).Client
	ctx := context.Background()
	opts := workload.Options{Client: k8s, AWS: newAWS(t)}
	notCreated := workload.Plan(workload.Spec{TGBs: 3, Namespaces: 1}, seeded(1))
	if err := workload.Plan(workload.Spec{TGBs: 3, Namespaces: 1}, seeded(1)).Adopt(ctx, notCreated, opts); !errors.Is(err, workload.ErrNotCreated) {
		t.Fatalf("adopting an uncreated fleet: %v", err)
	}
	tf := createFleet(t, workload.Spec{TGBs: 3, Namespaces: 1, PodsPerService: 1, Nodes: 1}, 2)
	other := tf.Spec
	other.TGBs = 4
	if err := workload.Plan(other, seeded(2)).Adopt(ctx, tf.FleetPlan, opts); err == nil {
		t.Fatal("adopted a fleet of another size")
	}
	if err := workload.Plan(tf.Spec, seeded(3)).Adopt(ctx, tf.FleetPlan, opts); err == nil {
		t.Fatal("adopted a fleet planned from another seed")
	}
}

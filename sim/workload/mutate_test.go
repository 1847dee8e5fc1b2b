package workload_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

// TestMutationChangesMatchCluster checks each mutation's Change against Desired before and after:
// after = before + Register − Deregister.
func TestMutationChangesMatchCluster(t *testing.T) {
	tf := createFleet(t, workload.Spec{TGBs: 12, Namespaces: 1, PodsPerService: 3, InstanceShare: 0.25, ReadinessGateShare: 0.5,
		NetworkingShare: 0.5, Nodes: 2}, 21)
	ctx := context.Background()
	rng := seeded(99)
	ipTGB := func(gated bool) types.NamespacedName {
		k := tf.ChooseTGBs(rng, 1, func(i workload.TGBInfo) bool {
			return i.TargetType == v1beta1.TargetTypeIP && i.ReadinessGate == gated
		})
		if len(k) != 1 {
			t.Fatalf("no ip TGB with gate=%v", gated)
		}
		return k[0]
	}
	instanceTGB := tf.ChooseTGBs(rng, 1, func(i workload.TGBInfo) bool { return i.TargetType == v1beta1.TargetTypeInstance })[0]

	check := func(t *testing.T, key types.NamespacedName, do func() (workload.FleetChange, error)) workload.FleetChange {
		t.Helper()
		before := tf.desired(t)
		ch, err := do()
		if err != nil {
			t.Fatal(err)
		}
		after := tf.desired(t)
		if ch.TGB != key || ch.ID == "" {
			t.Fatalf("change %+v for %s", ch, key)
		}
		want := applied(before[key].Targets, ch)
		if got := after[key].Targets; !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Fatalf("after %s: targets %v; before %v + %v − %v = %v", ch.Kind, got, before[key].Targets, ch.Register, ch.Deregister, want)
		}
		if ch.TargetGroupARN == "" || (after[key].TargetGroupARN != "" && ch.TargetGroupARN != after[key].TargetGroupARN) {
			t.Fatalf("change ARN %q, desired %q", ch.TargetGroupARN, after[key].TargetGroupARN)
		}
		for k, d := range after { // nothing else moved
			if k != key && !slices.Equal(d.Targets, before[k].Targets) {
				t.Fatalf("%s changed targets of %s", ch.Kind, k)
			}
		}
		return ch
	}

	t.Run("scale up gated", func(t *testing.T) {
		key := ipTGB(true)
		ch := check(t, key, func() (workload.FleetChange, error) { return tf.ScaleService(ctx, key, 2) })
		if len(ch.Register) != 2 || len(ch.Deregister) != 0 || len(ch.Pods) != 2 {
			t.Fatalf("change %+v", ch)
		}
	})
	t.Run("scale down", func(t *testing.T) {
		key := ipTGB(false)
		ch := check(t, key, func() (workload.FleetChange, error) { return tf.ScaleService(ctx, key, -2) })
		if len(ch.Register) != 0 || len(ch.Deregister) != 2 {
			t.Fatalf("change %+v", ch)
		}
		if info, _ := tf.TGB(key); info.Pods != 1 {
			t.Fatalf("%d pods left, want 1", info.Pods)
		}
	})
	t.Run("rotate pod IPs", func(t *testing.T) {
		key := ipTGB(false)
		ch := check(t, key, func() (workload.FleetChange, error) { return tf.RotatePodIPs(ctx, key, 2) })
		if len(ch.Register) != 2 || len(ch.Deregister) != 2 || slices.ContainsFunc(ch.Register, func(x tgbexpect.Target) bool {
			return slices.Contains(ch.Deregister, x)
		}) {
			t.Fatalf("change %+v", ch)
		}
	})
	t.Run("rotate instance TGB pods: no target change", func(t *testing.T) {
		ch := check(t, instanceTGB, func() (workload.FleetChange, error) { return tf.RotatePodIPs(ctx, instanceTGB, 1) })
		if len(ch.Register)+len(ch.Deregister) != 0 {
			t.Fatalf("change %+v", ch)
		}
	})
	t.Run("add TGB", func(t *testing.T) {
		n := tf.TGBCount()
		ch, err := tf.AddTGB(ctx)
		if err != nil {
			t.Fatal(err)
		}
		d := tf.desired(t)[ch.TGB]
		want := slices.Clone(ch.Register)
		sortTargets(want)
		if tf.TGBCount() != n+1 || !slices.Equal(d.Targets, want) || d.TargetGroupARN != ch.TargetGroupARN || len(want) == 0 {
			t.Fatalf("added %+v; desired %+v", ch, d)
		}
	})
	t.Run("remove TGB", func(t *testing.T) {
		key := ipTGB(false)
		before := tf.desired(t)[key]
		ch, err := tf.RemoveTGB(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		dereg := slices.Clone(ch.Deregister)
		sortTargets(dereg)
		if _, ok := tf.desired(t)[key]; ok || !slices.Equal(dereg, before.Targets) {
			t.Fatalf("removed %+v; before %+v", ch, before)
		}
		if _, err := tf.ScaleService(ctx, key, 1); !errors.Is(err, workload.ErrUnknownTGB) {
			t.Fatalf("scaling a removed TGB: %v", err)
		}
	})
}

func TestMutationsNeedCreate(t *testing.T) {
	f := workload.Plan(workload.Spec{TGBs: 1, Namespaces: 1}, seeded(1))
	if _, err := f.ScaleService(context.Background(), f.TGBs[0].Key(), 1); !errors.Is(err, workload.ErrNotCreated) {
		t.Fatalf("err = %v; want ErrNotCreated", err)
	}
}

func TestChooseIsSeeded(t *testing.T) {
	f := workload.Plan(workload.Spec{TGBs: 50, Namespaces: 1, InstanceShare: 0.5}, seeded(1))
	a := f.ChooseTGBs(seeded(3), 5, nil)
	b := f.ChooseTGBs(seeded(3), 5, nil)
	if len(a) != 5 || !slices.Equal(a, b) {
		t.Fatalf("%v vs %v", a, b)
	}
	inst := f.ChooseTGBs(seeded(4), 100, func(i workload.TGBInfo) bool { return i.TargetType == v1beta1.TargetTypeInstance })
	if len(inst) != 25 {
		t.Fatalf("%d instance TGBs chosen, want all 25", len(inst))
	}
}

// TestConcurrentMutationsWithSimulator runs mutations on many TGBs at once while the simulator runs,
// then checks that every slice matches the fleet (no writer overwrote another with older state).
func TestConcurrentMutationsWithSimulator(t *testing.T) {
	tf := createFleet(t, workload.Spec{TGBs: 16, Namespaces: 1, PodsPerService: 2, ReadinessGateShare: 0.5, Nodes: 2}, 31)
	startSimulator(t, tf.run)
	ctx := context.Background()
	keys := tf.ChooseTGBs(seeded(8), 16, nil)
	errs := make(chan error, len(keys))
	for i, key := range keys {
		go func() {
			var err error
			switch i % 3 {
			case 0:
				_, err = tf.ScaleService(ctx, key, 2)
			case 1:
				_, err = tf.RotatePodIPs(ctx, key, 1)
			default:
				_, err = tf.ScaleService(ctx, key, -1)
			}
			errs <- err
		}()
	}
	for range keys {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	testwait.UntilDetail(t, 10*time.Second, "desired targets = fleet pods", func() (bool, string) {
		d := tf.desired(t)
		for _, key := range keys {
			info, _ := tf.TGB(key)
			if len(d[key].Targets) != info.Pods {
				return false, key.String()
			}
		}
		return true, ""
	})
}

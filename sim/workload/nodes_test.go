package workload_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

// TestReplaceNode joins a node and turns the oldest Ready one NotReady: the Changes register the new
// instance and deregister the old one on exactly the instance TGBs whose nodeSelector matches, and
// Desired moves by exactly those Changes.
func TestReplaceNode(t *testing.T) {
	k8s := cluster(t).Client
	const seed = 51
	tf := createFleet(t, workload.Spec{TGBs: 8, Namespaces: 1, PodsPerService: 2, InstanceShare: 0.5, NetworkingShare: 0.5, Nodes: 3}, seed)
	ctx := context.Background()
	planned := slices.Clone(tf.Nodes) // zones round-robin: 2a, 2b, 2c; a fourth node is in 2a again
	instance := tf.ChooseTGBs(seeded(1), 100, func(i workload.TGBInfo) bool { return i.TargetType == v1beta1.TargetTypeInstance })
	if len(instance) != 4 {
		t.Fatalf("%d instance TGBs, want 4", len(instance))
	}
	// One binding selects the us-west-2b node only: neither the joining node nor node 0 is its target.
	zoneB := instance[0]
	tgb := &v1beta1.TargetGroupBinding{}
	if err := k8s.Get(ctx, zoneB, tgb); err != nil {
		t.Fatal(err)
	}
	tgb.Spec.NodeSelector = &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelTopologyZone: planned[1].Zone}}
	if err := k8s.Update(ctx, tgb); err != nil {
		t.Fatal(err)
	}
	matching := slices.DeleteFunc(slices.Clone(instance), func(k types.NamespacedName) bool { return k == zoneB })

	before := tf.desired(t)
	r, err := tf.ReplaceNode(ctx)
	if err != nil {
		t.Fatal(err)
	}
	joined, replaced := r.Joined.Node, r.Replaced.Node
	if replaced.Name != planned[0].Name || !replaced.NotReady {
		t.Fatalf("replaced %+v, want the oldest Ready node %s, NotReady", replaced, planned[0].Name)
	}
	reused := func(n workload.NodePlan) bool {
		return n.InstanceID == joined.InstanceID || n.PrivateIP == joined.PrivateIP
	}
	if slices.ContainsFunc(planned, reused) || joined.Zone != planned[0].Zone || !strings.HasPrefix(joined.InstanceID, "i-") || joined.NotReady {
		t.Fatalf("joined %+v; planned %+v", joined, planned)
	}
	checkNodeChanges(t, r.Joined.Changes, workload.ChangeNodeJoin, matching, joined.InstanceID)
	checkNodeChanges(t, r.Replaced.Changes, workload.ChangeNodeNotReady, matching, replaced.InstanceID)
	if got := r.Changes(); len(got) != 2*len(matching) || got[0].Kind != workload.ChangeNodeJoin {
		t.Fatalf("Changes() = %+v", got)
	}

	after := tf.desired(t)
	for key, d := range after {
		want := before[key].Targets
		for _, ch := range r.Changes() {
			if ch.TGB == key {
				want = applied(want, ch)
			}
		}
		if !slices.Equal(d.Targets, want) && !(len(d.Targets) == 0 && len(want) == 0) {
			t.Errorf("%s: targets %v, want %v (before %v)", key, d.Targets, want, before[key].Targets)
		}
	}
	for _, key := range matching {
		if d := after[key]; !slices.Contains(d.Targets, tgbexpect.Target{ID: joined.InstanceID, Port: nodePort(t, key)}) {
			t.Errorf("%s: desired %v lacks the joined node", key, d.Targets)
		}
	}

	// The new instance exists in EC2 with the node's address and a node security group.
	i := slices.IndexFunc(tf.aws.srv.Instances(), func(in fakeaws.Instance) bool { return in.ID == joined.InstanceID })
	if i < 0 {
		t.Fatalf("instance %s not in fakeaws", joined.InstanceID)
	}
	if in := tf.aws.srv.Instances()[i]; in.PrivateIP != joined.PrivateIP || len(in.SecurityGroupIDs) != 1 {
		t.Fatalf("instance %+v, node %+v", in, joined)
	}
	trunk := slices.IndexFunc(tf.aws.srv.ENIs(), func(e fakeaws.ENI) bool {
		return e.ID == joined.TrunkENIID() && e.InstanceID == joined.InstanceID && e.PrivateIPs[0] == joined.TrunkIP
	})
	if trunk < 0 {
		t.Fatalf("joined node %+v has no trunk ENI", joined)
	}
	checkReady(t, joined.Name, corev1.ConditionTrue)
	checkReady(t, replaced.Name, corev1.ConditionFalse)

	t.Run("new pods avoid NotReady nodes", func(t *testing.T) {
		key := tf.ChooseTGBs(seeded(2), 1, func(i workload.TGBInfo) bool { return i.TargetType == v1beta1.TargetTypeIP })[0]
		ch, err := tf.ScaleService(ctx, key, 8)
		if err != nil {
			t.Fatal(err)
		}
		var pods corev1.PodList
		if err := k8s.List(ctx, &pods, client.InNamespace(key.Namespace), client.MatchingLabels{kubesim.ServiceLabel: key.Name}); err != nil {
			t.Fatal(err)
		}
		placed := 0
		for _, p := range pods.Items {
			if slices.ContainsFunc(ch.Register, func(x tgbexpect.Target) bool { return x.ID == p.Status.PodIP }) {
				placed++
				if p.Spec.NodeName == replaced.Name {
					t.Errorf("new pod %s placed on NotReady node %s", p.Name, replaced.Name)
				}
			}
		}
		if placed != 8 {
			t.Fatalf("%d of the 8 new pods found", placed)
		}
	})
	t.Run("recreate uses Ready nodes", func(t *testing.T) {
		ch, err := tf.RecreateService(ctx, matching[1], 0)
		if err != nil {
			t.Fatal(err)
		}
		want := slices.Clone(ch.Register)
		sortTargets(want)
		if got := tf.desired(t)[matching[1]].Targets; !slices.Equal(got, want) {
			t.Fatalf("recreate registers %v, desired %v", want, got)
		}
	})
	t.Run("not ready", func(t *testing.T) {
		if _, err := tf.NodeNotReady(ctx, replaced.Name); err == nil {
			t.Error("a NotReady node turned NotReady again")
		}
		if _, err := tf.NodeNotReady(ctx, "no-such-node"); !errors.Is(err, workload.ErrUnknownNode) {
			t.Errorf("unknown node: %v", err)
		}
		// The zone-b binding targets node 1: its NotReady change names it as well.
		nc, err := tf.NodeNotReady(ctx, planned[1].Name)
		if err != nil {
			t.Fatal(err)
		}
		checkNodeChanges(t, nc.Changes, workload.ChangeNodeNotReady, instance, planned[1].InstanceID)
		if _, err := tf.NodeNotReady(ctx, planned[2].Name); err != nil {
			t.Fatal(err)
		}
		// Only the joined node is Ready now.
		if _, err := tf.NodeNotReady(ctx, joined.Name); err == nil || !strings.Contains(err.Error(), "last Ready node") {
			t.Fatalf("turning the last Ready node NotReady: %v", err)
		}
		r2, err := tf.ReplaceNode(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if r2.Replaced.Node.Name != joined.Name {
			t.Fatalf("second replacement replaced %s, want the first joined node %s", r2.Replaced.Node.Name, joined.Name)
		}
	})
	t.Run("adopt refuses a fleet with node mutations", func(t *testing.T) {
		again := workload.Plan(tf.Spec, seeded(seed))
		err := again.Adopt(ctx, tf.FleetPlan, workload.Options{Client: k8s, AWS: tf.aws, Labels: tf.run})
		if err == nil || !strings.Contains(err.Error(), "node mutations") {
			t.Fatalf("Adopt: %v", err)
		}
	})
}

// checkNodeChanges checks one change of kind per TGB in tgbs, in any order, each with the instance on
// the TGB's NodePort as its only target.
func checkNodeChanges(t *testing.T, chs []workload.FleetChange, kind string, tgbs []types.NamespacedName, instanceID string) {
	t.Helper()
	var got []types.NamespacedName
	for _, ch := range chs {
		got = append(got, ch.TGB)
		tg := []tgbexpect.Target{{ID: instanceID, Port: nodePort(t, ch.TGB)}}
		reg, dereg := ch.Register, ch.Deregister
		if kind == workload.ChangeNodeNotReady {
			reg, dereg = dereg, reg
		}
		if ch.Kind != kind || !strings.HasPrefix(ch.ID, kind+"-") || !slices.Equal(reg, tg) || len(dereg) != 0 || ch.TargetGroupARN == "" {
			t.Errorf("change %+v, want %s of %v", ch, kind, tg)
		}
	}
	key := func(a, b types.NamespacedName) int { return strings.Compare(a.String(), b.String()) }
	want := slices.Clone(tgbs)
	slices.SortFunc(got, key)
	slices.SortFunc(want, key)
	if !slices.Equal(got, want) {
		t.Errorf("%s changes for %v, want %v", kind, got, want)
	}
}

// nodePort is the NodePort of the TGB's Service.
func nodePort(t *testing.T, key types.NamespacedName) int32 {
	t.Helper()
	k8s := cluster(t).Client
	svc := &corev1.Service{}
	if err := k8s.Get(context.Background(), key, svc); err != nil {
		t.Fatal(err)
	}
	return svc.Spec.Ports[0].NodePort
}

func checkReady(t *testing.T, name string, want corev1.ConditionStatus) {
	t.Helper()
	k8s := cluster(t).Client
	n := &corev1.Node{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: name}, n); err != nil {
		t.Fatal(err)
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status != want || (want == corev1.ConditionFalse && c.Reason != "KubeletNotReady") {
				t.Errorf("node %s Ready = %s (%s), want %s", name, c.Status, c.Reason, want)
			}
			return
		}
	}
	t.Errorf("node %s has no Ready condition", name)
}

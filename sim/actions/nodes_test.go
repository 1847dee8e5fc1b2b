package actions

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/restartsim/restartsim/sim/nodesim"
	"github.com/restartsim/restartsim/sim/scenario"
)

// deleteNodes deletes the asked number of instance Nodes and no other Node, and refuses more than exist.
func TestDeleteNodes(t *testing.T) {
	ctx := context.Background()
	node := func(name string, instance bool) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if instance {
			n.Labels = map[string]string{nodesim.ManagedLabel: "i-" + name}
		}
		return n
	}
	c := fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).
		WithObjects(node("a", true), node("b", true), node("c", true), node("fleet", false)).Build()
	e := New(Deps{Scenario: &scenario.Scenario{TimeScale: 1}, Client: c, Seed: 7, T0: time.Now()})
	st := scenario.Step{Action: scenario.ActionChurn, Kind: scenario.ChurnDeleteNodes, Count: 2}
	if err := e.Do(ctx, 0, st); err != nil {
		t.Fatal(err)
	}
	var left corev1.NodeList
	if err := c.List(ctx, &left); err != nil {
		t.Fatal(err)
	}
	var instances int
	for _, n := range left.Items {
		if n.Labels[nodesim.ManagedLabel] != "" {
			instances++
		}
	}
	if len(left.Items) != 2 || instances != 1 {
		t.Fatalf("%d nodes left (%d of instances), want the fleet node and one instance node", len(left.Items), instances)
	}
	if len(e.events) != 1 || !strings.Contains(e.events[0].Detail, "deleteNodes × 2") {
		t.Fatalf("events %+v", e.events)
	}
	st.Count = 2
	if err := e.Do(ctx, 1, st); err == nil || !strings.Contains(err.Error(), "1 nodes") {
		t.Fatalf("deleting 2 of 1: error %v", err)
	}
}

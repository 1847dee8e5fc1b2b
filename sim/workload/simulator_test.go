package workload_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

// startSimulator runs a Simulator for the fleet's run label until the test ends.
func startSimulator(t *testing.T, run map[string]string) *kubesim.Simulator {
	t.Helper()
	cfg := cluster(t).Config
	sim, err := kubesim.NewSimulator(cfg, kubesim.SimulatorOptions{Labels: run})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- sim.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	select {
	case <-sim.Synced():
	case <-time.After(10 * time.Second):
		t.Fatal("simulator did not sync")
	}
	return sim
}

// setGate patches a pod's readiness-gate condition as a controller does.
func setGate(t *testing.T, pod types.NamespacedName, gate string, status corev1.ConditionStatus) {
	t.Helper()
	k8s := cluster(t).Client
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []map[string]any{
		{"type": gate, "status": string(status), "lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := &corev1.Pod{}
	p.Namespace, p.Name = pod.Namespace, pod.Name
	if err := k8s.Status().Patch(context.Background(), p, client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
		t.Fatalf("patching gate of %s: %v", pod, err)
	}
}

func getPod(t *testing.T, key types.NamespacedName) *corev1.Pod {
	t.Helper()
	k8s := cluster(t).Client
	p := &corev1.Pod{}
	if err := k8s.Get(context.Background(), key, p); err != nil {
		t.Fatal(err)
	}
	return p
}

func podReady(p *corev1.Pod) corev1.ConditionStatus {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status
		}
	}
	return ""
}

// endpointOf returns the pod's endpoint in its Service's slice.
func endpointOf(t *testing.T, svc, pod types.NamespacedName) (discoveryv1.Endpoint, bool) {
	t.Helper()
	k8s := cluster(t).Client
	var l discoveryv1.EndpointSliceList
	if err := k8s.List(context.Background(), &l, client.InNamespace(svc.Namespace),
		client.MatchingLabels{discoveryv1.LabelServiceName: svc.Name}); err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Items {
		for _, ep := range e.Endpoints {
			if ep.TargetRef != nil && ep.TargetRef.Name == pod.Name {
				return ep, true
			}
		}
	}
	return discoveryv1.Endpoint{}, false
}

func epState(ep discoveryv1.Endpoint, ok bool) string {
	if !ok {
		return "absent"
	}
	return fmt.Sprintf("ready=%v serving=%v terminating=%v", *ep.Conditions.Ready, *ep.Conditions.Serving, *ep.Conditions.Terminating)
}

func TestSimulatorReadinessGates(t *testing.T) {
	k8s := cluster(t).Client
	tf := createFleet(t, workload.Spec{TGBs: 4, Namespaces: 1, PodsPerService: 2, ReadinessGateShare: 1, Nodes: 1}, 11)
	startSimulator(t, tf.run)
	tg := tf.TGBs[0]
	pod := types.NamespacedName{Namespace: tg.Namespace, Name: tg.Pods[0].Name}
	gate := tg.GateType()

	p := getPod(t, pod)
	if podReady(p) != corev1.ConditionFalse || kubesim.ReadyCondition(p).Reason != kubesim.ReasonReadinessGatesNotReady {
		t.Fatalf("gated pod starts Ready=%s; want False (gate missing)", podReady(p))
	}
	wait := func(wantReady corev1.ConditionStatus, wantEP string) {
		t.Helper()
		testwait.UntilDetail(t, 10*time.Second, fmt.Sprintf("pod Ready=%s, endpoint %s", wantReady, wantEP), func() (bool, string) {
			p := getPod(t, pod)
			ep := epState(endpointOf(t, tg.Key(), pod))
			return podReady(p) == wantReady && ep == wantEP, fmt.Sprintf("Ready=%s endpoint %s", podReady(p), ep)
		})
	}
	// Gate True → Ready, endpoint ready.
	setGate(t, pod, gate, corev1.ConditionTrue)
	wait(corev1.ConditionTrue, "ready=true serving=true terminating=false")
	// Gate False (target re-registering) → not Ready, endpoint present but not ready; still a target.
	setGate(t, pod, gate, corev1.ConditionFalse)
	wait(corev1.ConditionFalse, "ready=false serving=false terminating=false")
	d := tf.desired(t)[tg.Key()]
	if len(d.Targets) != 2 || len(d.GatedPods) != 2 {
		t.Fatalf("desired %+v; want both pods as targets (held back only by the gate)", d)
	}
	setGate(t, pod, gate, corev1.ConditionTrue)
	wait(corev1.ConditionTrue, "ready=true serving=true terminating=false")

	// Node heartbeats, as a kubelet keeps them.
	testwait.UntilDetail(t, 10*time.Second, "node lease", func() (bool, string) {
		var lease coordinationv1.Lease
		err := k8s.Get(context.Background(), types.NamespacedName{Namespace: "kube-node-lease", Name: tf.Nodes[0].Name}, &lease)
		return err == nil && lease.Spec.RenewTime != nil, fmt.Sprint(err)
	})

	// The simulator repairs a slice someone else changed.
	var l discoveryv1.EndpointSliceList
	if err := k8s.List(context.Background(), &l, client.InNamespace(tg.Namespace), client.MatchingLabels{discoveryv1.LabelServiceName: tg.Name}); err != nil {
		t.Fatal(err)
	}
	e := l.Items[0]
	e.Endpoints = e.Endpoints[:1]
	if err := k8s.Update(context.Background(), &e); err != nil {
		t.Fatal(err)
	}
	testwait.UntilDetail(t, 10*time.Second, "slice repaired", func() (bool, string) {
		var got discoveryv1.EndpointSlice
		if err := k8s.Get(context.Background(), client.ObjectKeyFromObject(&e), &got); err != nil {
			t.Fatal(err)
		}
		return len(got.Endpoints) == 2, fmt.Sprintf("%d endpoints", len(got.Endpoints))
	})
}

func TestContainerRestartMirrorsEndpoints(t *testing.T) {
	tf := createFleet(t, workload.Spec{TGBs: 6, Namespaces: 1, PodsPerService: 2, ReadinessGateShare: 0.5, Nodes: 1}, 12)
	sim := startSimulator(t, tf.run)
	ctx := context.Background()
	for _, gated := range []bool{false, true} {
		t.Run(fmt.Sprintf("gated=%v", gated), func(t *testing.T) {
			keys := tf.ChoosePods(seeded(5), 1, func(p workload.PodInfo) bool { return p.TGB.ReadinessGate == gated })
			if len(keys) != 1 {
				t.Fatal("no pod to restart")
			}
			pod := keys[0]
			info, _ := tf.TGB(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name[:len(pod.Name)-2]})
			if gated {
				setGate(t, pod, tgbexpect.ReadinessGatePrefix+info.Key.Name, corev1.ConditionTrue)
				testwait.UntilDetail(t, 10*time.Second, "gated pod ready", func() (bool, string) {
					return podReady(getPod(t, pod)) == corev1.ConditionTrue, string(podReady(getPod(t, pod)))
				})
			}
			ch, err := tf.ContainerRestart(ctx, pod)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Kind != workload.ChangeContainerRestart || ch.TGB != info.Key || len(ch.Register)+len(ch.Deregister) != 0 ||
				(len(ch.Pods) == 1) != gated {
				t.Fatalf("change %+v", ch)
			}
			// Right after: container down, endpoint not ready, not a desired target.
			p := getPod(t, pod)
			if podReady(p) != corev1.ConditionFalse || p.Status.ContainerStatuses[0].RestartCount != 1 {
				t.Fatalf("after restart: Ready=%s restarts=%d", podReady(p), p.Status.ContainerStatuses[0].RestartCount)
			}
			if ep := epState(endpointOf(t, info.Key, pod)); ep != "ready=false serving=false terminating=false" {
				t.Fatalf("endpoint during restart: %s", ep)
			}
			if d := tf.desired(t)[info.Key]; slices.ContainsFunc(d.Targets, func(x tgbexpect.Target) bool { return x.ID == p.Status.PodIP }) {
				t.Fatalf("restarting pod %s still a desired target: %+v", p.Status.PodIP, d)
			}
			// Back after the delay; a gated pod is Ready at once (its gate is still True) until the
			// controller re-flips the gate, which the kubelet and endpoint controller then follow.
			testwait.UntilDetail(t, 10*time.Second, "container back", func() (bool, string) {
				ep := epState(endpointOf(t, info.Key, pod))
				return ep == "ready=true serving=true terminating=false", ep
			})
			if gated {
				setGate(t, pod, tgbexpect.ReadinessGatePrefix+info.Key.Name, corev1.ConditionFalse)
				testwait.UntilDetail(t, 10*time.Second, "gate re-flip mirrored", func() (bool, string) {
					ep := epState(endpointOf(t, info.Key, pod))
					return ep == "ready=false serving=false terminating=false", ep
				})
				setGate(t, pod, tgbexpect.ReadinessGatePrefix+info.Key.Name, corev1.ConditionTrue)
				testwait.UntilDetail(t, 10*time.Second, "gate back", func() (bool, string) {
					ep := epState(endpointOf(t, info.Key, pod))
					return ep == "ready=true serving=true terminating=false", ep
				})
			}
		})
	}
	if sim.Writes() == 0 {
		t.Error("simulator made no writes")
	}
}

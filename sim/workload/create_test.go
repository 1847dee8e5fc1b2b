package workload_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

func TestCreateSmallFleet(t *testing.T) {
	k8s := cluster(t).Client
	spec := workload.Spec{TGBs: 20, Namespaces: 1, PodsPerService: 3, InstanceShare: 0.2, ReadinessGateShare: 0.5, NetworkingShare: 0.5, Nodes: 3}
	tf := createFleet(t, spec, 7)
	ctx := context.Background()
	sel := client.MatchingLabels(tf.run)

	var (
		nss    corev1.NamespaceList
		nodes  corev1.NodeList
		svcs   corev1.ServiceList
		pods   corev1.PodList
		eps    discoveryv1.EndpointSliceList
		tgbs   v1beta1.TargetGroupBindingList
		counts = map[string]int{}
	)
	for name, l := range map[string]client.ObjectList{"namespaces": &nss, "nodes": &nodes, "services": &svcs, "pods": &pods, "slices": &eps, "tgbs": &tgbs} {
		if err := k8s.List(ctx, l, sel); err != nil {
			t.Fatal(err)
		}
		counts[name] = len(mustItems(t, l))
	}
	want := map[string]int{"namespaces": 1, "nodes": 3, "services": 20, "pods": 60, "slices": 20, "tgbs": 20}
	for k, v := range want {
		if counts[k] != v {
			t.Errorf("%s: %d objects, want %d", k, counts[k], v)
		}
	}
	if wantWrites := 1 + 2*3 + 3*20 + 2*60; tf.stats.Writes != wantWrites || tf.stats.Objects != 1+3+20*3+60 {
		t.Errorf("stats %+v; want %d writes", tf.stats, wantWrites)
	}
	if !strings.Contains(tf.progress.String(), "creating fleet: ") {
		t.Errorf("no progress lines in %q", tf.progress.String())
	}

	for _, n := range nodes.Items {
		if !strings.HasPrefix(n.Spec.ProviderID, "aws:///us-west-2") || len(n.Status.Conditions) == 0 ||
			n.Status.Conditions[0].Status != corev1.ConditionTrue || n.Status.Addresses[0].Type != corev1.NodeInternalIP {
			t.Errorf("node %s: providerID %q status %+v", n.Name, n.Spec.ProviderID, n.Status)
		}
	}
	podByName := map[string]*corev1.Pod{}
	for i := range pods.Items {
		p := &pods.Items[i]
		podByName[p.Name] = p
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
			t.Errorf("pod %s: phase %s ip %q", p.Name, p.Status.Phase, p.Status.PodIP)
		}
	}
	plans := map[string]*workload.TGBPlan{}
	for _, tg := range tf.TGBs {
		plans[tg.Name] = tg
	}
	for _, e := range eps.Items {
		tg := plans[e.Labels[discoveryv1.LabelServiceName]]
		if tg == nil || e.Labels[discoveryv1.LabelManagedBy] != kubesim.ManagedBy || len(e.Ports) != 1 || *e.Ports[0].Port != 8080 {
			t.Fatalf("slice %s: labels %v ports %+v", e.Name, e.Labels, e.Ports)
		}
		if len(e.Endpoints) != 3 {
			t.Fatalf("slice %s: %d endpoints", e.Name, len(e.Endpoints))
		}
		for i, ep := range e.Endpoints {
			p := podByName[ep.TargetRef.Name]
			if p == nil || ep.TargetRef.UID != p.UID || ep.Addresses[0] != tg.Pods[i].IP || *ep.NodeName != p.Spec.NodeName {
				t.Fatalf("slice %s endpoint %d: %+v (pod %v)", e.Name, i, ep, p)
			}
			ready := kubesim.ReadyCondition(p).Status == corev1.ConditionTrue
			if *ep.Conditions.Ready != !tg.ReadinessGate || ready != !tg.ReadinessGate || *ep.Conditions.Terminating {
				t.Fatalf("slice %s endpoint %d: conditions %+v, gated %v", e.Name, i, ep.Conditions, tg.ReadinessGate)
			}
		}
	}

	// AWS: one target group per TGB, ARNs in the TGBs; instances seeded.
	tgs := map[string]string{}
	for _, g := range tf.aws.srv.TargetGroups() {
		tgs[g.Name] = g.ARN
	}
	for _, tgb := range tgbs.Items {
		tg := plans[tgb.Name]
		if tgs[tg.TargetGroupName] == "" || tgb.Spec.TargetGroupARN != tgs[tg.TargetGroupName] || *tgb.Spec.TargetType != tg.TargetType {
			t.Errorf("tgb %s: arn %q, fakeaws %q", tgb.Name, tgb.Spec.TargetGroupARN, tgs[tg.TargetGroupName])
		}
		if (tgb.Spec.Networking != nil) != (tg.Networking != workload.NetworkingNone) {
			t.Errorf("tgb %s: networking %v, plan %q", tgb.Name, tgb.Spec.Networking, tg.Networking)
		}
	}
	if n := len(tf.aws.srv.Instances()); n != 3 {
		t.Errorf("%d instances seeded, want 3", n)
	}

	// Desired: every planned target, gated pods included (held back only by their gate).
	d := tf.desired(t)
	if len(d) != 20 {
		t.Fatalf("Desired has %d TGBs", len(d))
	}
	for _, tg := range tf.TGBs {
		got := d[tg.Key()]
		var want []tgbexpect.Target
		var gated []types.NamespacedName
		if tg.TargetType == v1beta1.TargetTypeInstance {
			for _, n := range tf.Nodes {
				want = append(want, tgbexpect.Target{ID: n.InstanceID, Port: tg.NodePort})
			}
		} else {
			for _, p := range tg.Pods {
				want = append(want, tgbexpect.Target{ID: p.IP, Port: 8080})
				if tg.ReadinessGate {
					gated = append(gated, types.NamespacedName{Namespace: tg.Namespace, Name: p.Name})
				}
			}
		}
		sortTargets(want)
		if !slices.Equal(got.Targets, want) || !slices.Equal(got.GatedPods, gated) || got.TargetGroupARN != tg.TargetGroupARN {
			t.Errorf("Desired[%s] = %+v; want targets %v gated %v", tg.Name, got, want, gated)
		}
		if (len(got.Rules) > 0) != (tg.Networking != workload.NetworkingNone) {
			t.Errorf("Desired[%s].Rules = %+v for networking %q", tg.Name, got.Rules, tg.Networking)
		}
		for _, r := range got.Rules {
			if r.Protocol != "tcp" || (r.CIDR == "") == (r.SourceSecurityGroupID == "") || !strings.HasPrefix(r.SecurityGroupID, "sg-") {
				t.Errorf("Desired[%s] rule %+v", tg.Name, r)
			}
		}
	}
}

func mustItems(t *testing.T, l client.ObjectList) []any {
	t.Helper()
	switch v := l.(type) {
	case *corev1.NamespaceList:
		return anySlice(v.Items)
	case *corev1.NodeList:
		return anySlice(v.Items)
	case *corev1.ServiceList:
		return anySlice(v.Items)
	case *corev1.PodList:
		return anySlice(v.Items)
	case *discoveryv1.EndpointSliceList:
		return anySlice(v.Items)
	case *v1beta1.TargetGroupBindingList:
		return anySlice(v.Items)
	}
	t.Fatalf("unexpected list %T", l)
	return nil
}

func anySlice[T any](s []T) []any {
	out := make([]any, len(s))
	for i := range s {
		out[i] = s[i]
	}
	return out
}

// TestCreateTakenNodePort: a NodePort already used in the cluster is replaced by an allocated one.
func TestCreateTakenNodePort(t *testing.T) {
	k8s := cluster(t).Client
	ctx := context.Background()
	spec := workload.Spec{TGBs: 2, Namespaces: 1, PodsPerService: 1, InstanceShare: 1, Nodes: 1}
	// Plan the same fleet createFleet will, to learn its first NodePort, and take that port.
	probe := workload.Plan(spec, seeded(77))
	taken := &corev1.Service{}
	taken.Namespace, taken.Name = "default", "takes-nodeport"
	taken.Spec = corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Ports: []corev1.ServicePort{{Port: 80, NodePort: probe.TGBs[0].NodePort}}}
	if err := k8s.Create(ctx, taken); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = k8s.Delete(ctx, taken) }()
	tf := createFleet(t, spec, 77)
	got := tf.TGBs[0].NodePort
	if got == probe.TGBs[0].NodePort || got == 0 {
		t.Fatalf("NodePort %d; want a freshly allocated one", got)
	}
	if d := tf.desired(t)[tf.TGBs[0].Key()]; len(d.Targets) != 1 || d.Targets[0].Port != got {
		t.Fatalf("desired %+v; want the allocated NodePort %d", d, got)
	}
}

// TestCreateStampsTheClock: Create takes the objects' status times and its own elapsed time from
// Options.Clock.
func TestCreateStampsTheClock(t *testing.T) {
	k8s := cluster(t).Client
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tf := createFleet(t, workload.Spec{TGBs: 1, Namespaces: 1, PodsPerService: 1, Nodes: 1}, 5, func(o *workload.Options) {
		o.Clock = clocktesting.NewFakePassiveClock(at)
	})
	if tf.stats.Elapsed != 0 {
		t.Errorf("Elapsed %v on a clock that stood still", tf.stats.Elapsed)
	}
	var pods corev1.PodList
	if err := k8s.List(context.Background(), &pods, client.MatchingLabels(tf.run)); err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 1 || pods.Items[0].Status.StartTime == nil || !pods.Items[0].Status.StartTime.Time.Equal(at) {
		t.Fatalf("pods %d, want one started at %v", len(pods.Items), at)
	}
	node := &corev1.Node{}
	if err := k8s.Get(context.Background(), client.ObjectKey{Name: tf.Nodes[0].Name}, node); err != nil {
		t.Fatal(err)
	}
	for _, c := range node.Status.Conditions {
		if c.Type == corev1.NodeReady && !c.LastHeartbeatTime.Time.Equal(at) {
			t.Errorf("node Ready heartbeat %v, want %v", c.LastHeartbeatTime, at)
		}
	}
}

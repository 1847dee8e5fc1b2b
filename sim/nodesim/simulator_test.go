package nodesim

import (
	"context"
	"net/netip"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/backend"
)

// fakeCluster is a fake API server with the pod index the simulator's field selector needs.
func fakeCluster() client.Client {
	return fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).
		WithStatusSubresource(&corev1.Node{}, &corev1.Pod{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithIndex(&corev1.Pod{}, "status.phase", func(o client.Object) []string { return []string{string(o.(*corev1.Pod).Status.Phase)} }).
		Build()
}

func newAWS(t *testing.T) *fakeaws.Server {
	t.Helper()
	srv, err := fakeaws.New(fakeaws.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	return srv
}

func seed(t *testing.T, srv *fakeaws.Server, in fakeaws.Instance) {
	t.Helper()
	if _, err := srv.SeedInstance(in); err != nil {
		t.Fatal(err)
	}
}

// TestSeededInstanceWithoutTypeIsLeftToItsHarness: a workload seeds its node group's instances without a
// type and registers their Nodes itself; the simulator neither registers them nor logs them as failures.
func TestSeededInstanceWithoutTypeIsLeftToItsHarness(t *testing.T) {
	ctx := context.Background()
	srv, c := newAWS(t), fakeCluster()
	seed(t, srv, fakeaws.Instance{ID: "i-00000000000000001", PrivateIP: "10.0.1.4", AvailabilityZone: "us-west-2a"})
	seed(t, srv, fakeaws.Instance{ID: "i-00000000000000002", PrivateIP: "10.0.1.5", AvailabilityZone: "us-west-2a",
		InstanceType: "m5.large", UserData: encoded(t, "al2023.mime")})
	var logged []string
	logger := funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{})
	s := New(c, backend.Local{Server: srv}, Options{Region: "us-west-2", Logger: logger})
	if err := s.SyncOnce(ctx); err != nil {
		t.Fatal(err)
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 1 || nodes.Items[0].Labels[ManagedLabel] != "i-00000000000000002" {
		t.Fatalf("nodes %+v, want only the launched instance's", nodes.Items)
	}
	if len(logged) != 0 {
		t.Errorf("logged %q, want nothing of the seeded instance", logged)
	}
}

func TestJoinRunAndRemove(t *testing.T) {
	ctx := context.Background()
	srv, c := newAWS(t), fakeCluster()
	in := fakeaws.Instance{ID: "i-0123456789abcdef0", PrivateIP: "10.0.1.2", AvailabilityZone: "us-west-2a",
		InstanceType: "m5.large", UserData: encoded(t, "al2023.mime")}
	seed(t, srv, fakeaws.Instance{ID: "i-0000000000000000p", PrivateIP: "10.0.1.3", AvailabilityZone: "us-west-2a", InstanceType: "m5.large", State: "pending"})
	seed(t, srv, in)
	s := New(c, backend.Local{Server: srv}, Options{Region: "us-west-2", JoinDelay: 30 * time.Second})
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.now = func() time.Time { return clock }
	sync := func() {
		t.Helper()
		if err := s.SyncOnce(ctx); err != nil {
			t.Fatal(err)
		}
	}
	sync()
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil || len(nodes.Items) != 1 {
		t.Fatalf("nodes %d (%v), want only the running instance's", len(nodes.Items), err)
	}
	node := nodes.Items[0]
	if node.Name != "ip-10-0-1-2.us-west-2.compute.internal" || node.Spec.ProviderID != "aws:///us-west-2a/i-0123456789abcdef0" {
		t.Fatalf("node %s provider %s", node.Name, node.Spec.ProviderID)
	}
	for k, v := range map[string]string{corev1.LabelHostname: node.Name, corev1.LabelArchStable: "amd64", corev1.LabelOSStable: "linux",
		corev1.LabelInstanceTypeStable: "m5.large", corev1.LabelTopologyZone: "us-west-2a", corev1.LabelTopologyRegion: "us-west-2",
		"karpenter.sh/nodepool": "default"} {
		if node.Labels[k] != v {
			t.Errorf("label %s=%q, want %q", k, node.Labels[k], v)
		}
	}
	if !slices.Contains(node.Spec.Taints, unregistered) {
		t.Errorf("taints %v lack %v", node.Spec.Taints, unregistered)
	}
	if node.Status.Capacity.Pods().Value() != 110 { // the NodeConfig's maxPods
		t.Errorf("pods capacity %v", node.Status.Capacity.Pods())
	}
	if nodeReadyStatus(&node) != corev1.ConditionFalse {
		t.Fatalf("node Ready=%s before its join delay", nodeReadyStatus(&node))
	}

	// The not-ready taint an API server's admission adds at registration.
	notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
	node.Spec.Taints = append(node.Spec.Taints, notReady)
	if err := c.Update(ctx, &node); err != nil {
		t.Fatal(err)
	}

	clock = clock.Add(30 * time.Second)
	sync()
	mustGet(t, c, &node)
	if nodeReadyStatus(&node) != corev1.ConditionTrue {
		t.Fatalf("node Ready=%s after its join delay", nodeReadyStatus(&node))
	}
	if slices.Contains(node.Spec.Taints, notReady) || !slices.Contains(node.Spec.Taints, unregistered) {
		t.Errorf("taints %v once Ready, want the not-ready one lifted and the others kept", node.Spec.Taints)
	}
	var lease coordinationv1.Lease
	if err := c.Get(ctx, client.ObjectKey{Namespace: corev1.NamespaceNodeLease, Name: node.Name}, &lease); err != nil {
		t.Fatalf("no node lease: %v", err)
	}

	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec:   corev1.PodSpec{NodeName: node.Name, Containers: []corev1.Container{{Name: "app", Image: "nginx"}}},
		Status: corev1.PodStatus{Phase: corev1.PodPending}} // as the API server creates every pod
	if err := c.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	sync()
	mustGet(t, c, pod)
	ip, err := netip.ParseAddr(pod.Status.PodIP)
	if pod.Status.Phase != corev1.PodRunning || err != nil || !netip.MustParsePrefix(node.Spec.PodCIDR).Contains(ip) ||
		pod.Status.HostIP != "10.0.1.2" || len(pod.Status.ContainerStatuses) != 1 || !pod.Status.ContainerStatuses[0].Ready {
		t.Fatalf("pod status %+v", pod.Status)
	}

	in.State = "shutting-down"
	seed(t, srv, in)
	sync()
	mustGet(t, c, &node)
	if nodeReadyStatus(&node) != corev1.ConditionUnknown {
		t.Fatalf("node Ready=%s after its instance shut down", nodeReadyStatus(&node))
	}
	sync()
	for _, o := range []client.Object{&node, pod} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
			t.Fatalf("%s still there after its instance ended (%v)", o.GetName(), err)
		}
	}
	in.State = "running" // a deleted Node's kubelet is gone for good
	seed(t, srv, in)
	sync()
	if err := c.List(ctx, &nodes); err != nil || len(nodes.Items) != 0 {
		t.Fatalf("nodes %d (%v) after removal, want none", len(nodes.Items), err)
	}
}

func mustGet(t *testing.T, c client.Client, o client.Object) {
	t.Helper()
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(o), o); err != nil {
		t.Fatal(err)
	}
}

func nodeReadyStatus(n *corev1.Node) corev1.ConditionStatus {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return c.Status
		}
	}
	return ""
}

// TestCapacity checks capacity and allocatable against EKS's kube-reserved figures worked by hand.
func TestCapacity(t *testing.T) {
	for _, tc := range []struct {
		typ, arch                  string
		pods                       int64
		cpu, allocCPU              string
		memory, allocMemory, store string
	}{
		// m5.large: 3 ENIs x (10-1) + 2 = 29 pods; CPU 2000 - (60+10); memory 8192 - (11*29+255) - 100 MiB.
		{typ: "m5.large", arch: "amd64", pods: 29, cpu: "2", allocCPU: "1930m", memory: "8Gi", allocMemory: "7518Mi"},
		// c5.xlarge: 4 x 14 + 2 = 58; CPU 4000 - (60+10+5+5); memory 8192 - (638+255) - 100.
		{typ: "c5.xlarge", arch: "amd64", pods: 58, cpu: "4", allocCPU: "3920m", memory: "8Gi", allocMemory: "7199Mi"},
		{typ: "m6g.large", arch: "arm64", pods: 29, cpu: "2", allocCPU: "1930m", memory: "8Gi", allocMemory: "7518Mi"},
	} {
		in := fakeaws.Instance{ID: "i-1", PrivateIP: "10.0.0.9", AvailabilityZone: "us-east-1b", InstanceType: tc.typ}
		n, err := nodeObject(in, "us-east-1", Kubelet{}, podCIDR(0), metav1.Now())
		if err != nil {
			t.Fatal(err)
		}
		if n.Name != "ip-10-0-0-9.ec2.internal" || n.Labels[corev1.LabelArchStable] != tc.arch {
			t.Errorf("%s: name %s arch %s", tc.typ, n.Name, n.Labels[corev1.LabelArchStable])
		}
		c, a := n.Status.Capacity, n.Status.Allocatable
		for what, pair := range map[string][2]resource.Quantity{
			"cpu": {c[corev1.ResourceCPU], resource.MustParse(tc.cpu)}, "allocatable cpu": {a[corev1.ResourceCPU], resource.MustParse(tc.allocCPU)},
			"memory": {c[corev1.ResourceMemory], resource.MustParse(tc.memory)}, "allocatable memory": {a[corev1.ResourceMemory], resource.MustParse(tc.allocMemory)},
			"allocatable storage": {a[corev1.ResourceEphemeralStorage], resource.MustParse("17Gi")}, // 20Gi - 1Gi - 10%
		} {
			if pair[0].Cmp(pair[1]) != 0 {
				t.Errorf("%s: %s %s, want %s", tc.typ, what, pair[0].String(), pair[1].String())
			}
		}
		if c.Pods().Value() != tc.pods || a.Pods().Value() != tc.pods {
			t.Errorf("%s: pods %v/%v, want %d", tc.typ, c.Pods(), a.Pods(), tc.pods)
		}
	}
}

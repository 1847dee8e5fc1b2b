package kubesim

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// TestLagging: a snapshot lags while a pod's Ready condition or its Service's slice has not caught
// up with its readiness gate, in each of the steps of a gate turning True.
func TestLagging(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
	sliceOf := func(pods ...*corev1.Pod) *discoveryv1.EndpointSlice {
		return &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: SliceName("web"),
				Labels: map[string]string{discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: ManagedBy}},
			Endpoints: Endpoints(pods)}
	}
	gateFalse := fullPod(true, false, now) // Ready False: the gate's condition is missing
	gateTrueReadyFalse := gateFalse.DeepCopy()
	gateTrueReadyFalse.Status.Conditions = append(gateTrueReadyFalse.Status.Conditions,
		corev1.PodCondition{Type: gateFalse.Spec.ReadinessGates[0].ConditionType, Status: corev1.ConditionTrue})
	gateTrue := fullPod(true, true, now)

	for _, tc := range []struct {
		name          string
		pod           *corev1.Pod
		slice         *discoveryv1.EndpointSlice
		clusterSlices bool
		want          int
	}{
		{"gate False, settled", gateFalse, sliceOf(gateFalse), false, 0},
		{"gate True, Ready not yet", gateTrueReadyFalse, sliceOf(gateFalse), false, 1},
		{"Ready True, endpoint not yet", gateTrue, sliceOf(gateFalse), false, 1},
		{"gate True, settled", gateTrue, sliceOf(gateTrue), false, 0},
		{"the cluster's slices are not judged", gateTrue, sliceOf(gateFalse), true, 0},
		{"the cluster's slices, Ready not yet", gateTrueReadyFalse, sliceOf(gateFalse), true, 1},
		{"no slice", gateTrue, nil, false, 0},
	} {
		s := &Simulator{opts: SimulatorOptions{ClusterEndpointSlices: tc.clusterSlices}}
		var slices []*discoveryv1.EndpointSlice
		if tc.slice != nil {
			slices = append(slices, tc.slice)
		}
		if got := s.Lagging([]*corev1.Pod{tc.pod}, slices); got != tc.want {
			t.Errorf("%s: Lagging = %d, want %d", tc.name, got, tc.want)
		}
	}
}

// TestReadyPatchClearsReason: applied as the API server applies it (a strategic merge), the patch of
// a gated pod whose gate turned True leaves a Ready condition the kubelet rule calls up to date,
// without the reason and message of the earlier False.
func TestReadyPatchClearsReason(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
	pod := fullPod(true, false, now) // Ready False, ReadinessGatesNotReady
	pod.Status.Conditions = append(pod.Status.Conditions,
		corev1.PodCondition{Type: pod.Spec.ReadinessGates[0].ConditionType, Status: corev1.ConditionTrue})
	if readyUpToDate(pod) {
		t.Fatal("the gate turned True but Ready is up to date before the patch")
	}
	orig, err := json.Marshal(pod)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := strategicpatch.StrategicMergePatch(orig, mustPatch(t, pod, now.Add(time.Second)), &corev1.Pod{})
	if err != nil {
		t.Fatal(err)
	}
	var got corev1.Pod
	if err := json.Unmarshal(merged, &got); err != nil {
		t.Fatal(err)
	}
	ready := PodCondition(&got, corev1.PodReady)
	if ready == nil || ready.Status != corev1.ConditionTrue || ready.Reason != "" || ready.Message != "" || !readyUpToDate(&got) {
		t.Fatalf("Ready after the patch: %+v", ready)
	}
}

// BenchmarkLagging: a settled snapshot of 10,000 Services of three pods each, the size of the
// largest scenarios, which every steady-state check reads.
func BenchmarkLagging(b *testing.B) {
	now := metav1.NewTime(time.Date(2026, 12, 6, 0, 0, 0, 0, time.UTC))
	var pods []*corev1.Pod
	var slices []*discoveryv1.EndpointSlice
	for i := range 10000 {
		svc := fmt.Sprintf("svc-%05d", i)
		var own []*corev1.Pod
		for j := range 3 {
			p := fullPod(true, true, now)
			p.Name, p.Labels[ServiceLabel] = fmt.Sprintf("%s-%d", svc, j), svc
			p.Status.PodIP = fmt.Sprintf("10.%d.%d.%d", i/250, i%250, j)
			own = append(own, p)
		}
		pods = append(pods, own...)
		slices = append(slices, &discoveryv1.EndpointSlice{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: SliceName(svc), Labels: map[string]string{discoveryv1.LabelServiceName: svc}},
			Endpoints:  Endpoints(own)})
	}
	s := &Simulator{}
	b.ResetTimer()
	for range b.N {
		if n := s.Lagging(pods, slices); n != 0 {
			b.Fatalf("Lagging = %d", n)
		}
	}
}

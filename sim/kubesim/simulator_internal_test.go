package workload

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// TestTrimPodKeepsWhatTheRulesRead: the simulated kubelet and endpoint controller decide the same
// on a trimmed pod as on the full one, and the trimmed pod is smaller.
func TestTrimPodKeepsWhatTheRulesRead(t *testing.T) {
	f := Plan(Spec{TGBs: 4, Namespaces: 1, PodsPerService: 2, ReadinessGateShare: 1, Nodes: 2}, rand.New(rand.NewPCG(1, 2)))
	now := metav1.NewTime(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	for i := range f.TGBs {
		tp := f.TGBs[i]
		for _, pp := range tp.Pods {
			full := f.podObject(tp, pp, "sg-1", map[string]string{"restartsim.io/run": "t"})
			full.UID, full.ResourceVersion = types.UID("uid-"+pp.Name), "42"
			full.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "restartsim"}}
			full.Status = f.runningStatus(full, pp, now)
			obj, err := trimPod(full.DeepCopy())
			if err != nil {
				t.Fatal(err)
			}
			trimmed := obj.(*corev1.Pod)
			if !reflect.DeepEqual(Endpoint(trimmed), Endpoint(full)) || inEndpoints(trimmed) != inEndpoints(full) ||
				ReadyCondition(trimmed) != ReadyCondition(full) || readyUpToDate(trimmed) != readyUpToDate(full) {
				t.Fatalf("%s: the rules differ on the trimmed pod", pp.Name)
			}
			if fp, _ := readyPatch(full, now.Time); string(mustPatch(t, trimmed, now.Time)) != string(fp) {
				t.Fatalf("%s: ready patch differs", pp.Name)
			}
			want := full.DeepCopy()
			want.ManagedFields = nil
			want.Spec = corev1.PodSpec{NodeName: full.Spec.NodeName, ReadinessGates: full.Spec.ReadinessGates,
				Containers: []corev1.Container{{Name: full.Spec.Containers[0].Name, Ports: full.Spec.Containers[0].Ports}}}
			want.Status = corev1.PodStatus{Phase: full.Status.Phase, Conditions: full.Status.Conditions, PodIP: full.Status.PodIP,
				PodIPs: full.Status.PodIPs, HostIP: full.Status.HostIP, HostIPs: full.Status.HostIPs}
			if !reflect.DeepEqual(trimmed, want) {
				t.Fatalf("%s: trimmed pod\n%+v\nwant\n%+v", pp.Name, trimmed, want)
			}
		}
	}
	if obj, err := trimPod("not a pod"); err != nil || obj != "not a pod" {
		t.Errorf("trimPod(non-pod) = %v, %v", obj, err)
	}
}

func mustPatch(t *testing.T, pod *corev1.Pod, now time.Time) []byte {
	t.Helper()
	p, err := readyPatch(pod, now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

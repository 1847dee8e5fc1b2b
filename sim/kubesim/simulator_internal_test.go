package kubesim

import (
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestTrimPodKeepsWhatTheRulesRead: the simulated kubelet and endpoint controller decide the same
// on a trimmed pod as on the full one, and the trimmed pod is smaller.
func TestTrimPodKeepsWhatTheRulesRead(t *testing.T) {
	now := metav1.NewTime(time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		name                  string
		gated, gateTrue, gone bool
	}{{"plain", false, false, false}, {"gate missing", true, false, false}, {"gate true", true, true, false}, {"terminating", true, true, true}} {
		full := fullPod(tc.gated, tc.gateTrue, now)
		if tc.gone {
			full.DeletionTimestamp = &now
		}
		obj, err := trimPod(full.DeepCopy())
		if err != nil {
			t.Fatal(err)
		}
		trimmed := obj.(*corev1.Pod)
		if !reflect.DeepEqual(Endpoint(trimmed), Endpoint(full)) || inEndpoints(trimmed) != inEndpoints(full) ||
			ReadyCondition(trimmed) != ReadyCondition(full) || readyUpToDate(trimmed) != readyUpToDate(full) {
			t.Fatalf("%s: the rules differ on the trimmed pod", tc.name)
		}
		if fp, _ := readyPatch(full, now.Time); string(mustPatch(t, trimmed, now.Time)) != string(fp) {
			t.Fatalf("%s: ready patch differs", tc.name)
		}
		want := full.DeepCopy()
		want.ManagedFields = nil
		want.Spec = corev1.PodSpec{NodeName: full.Spec.NodeName, ReadinessGates: full.Spec.ReadinessGates,
			Containers: []corev1.Container{{Name: full.Spec.Containers[0].Name, Ports: full.Spec.Containers[0].Ports}}}
		want.Status = corev1.PodStatus{Phase: full.Status.Phase, Conditions: full.Status.Conditions, PodIP: full.Status.PodIP,
			PodIPs: full.Status.PodIPs, HostIP: full.Status.HostIP, HostIPs: full.Status.HostIPs}
		if !reflect.DeepEqual(trimmed, want) {
			t.Fatalf("%s: trimmed pod\n%+v\nwant\n%+v", tc.name, trimmed, want)
		}
	}
	if obj, err := trimPod("not a pod"); err != nil || obj != "not a pod" {
		t.Errorf("trimPod(non-pod) = %v, %v", obj, err)
	}
}

// fullPod is a started pod as the fleet creates it and the API server returns it: server-set
// metadata, defaults the simulator never reads (tolerations, a service account volume), two
// container ports, container statuses, and optionally a readiness gate.
func fullPod(gated, gateTrue bool, now metav1.Time) *corev1.Pod {
	const gate = "target-health.elbv2.k8s.aws/web"
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "ns", UID: "uid-web-0", ResourceVersion: "42",
			Labels:        map[string]string{ServiceLabel: "web", "restartsim.io/run": "t"},
			Annotations:   map[string]string{"restartsim.io/security-groups": "sg-1"},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "restartsim"}}},
		Spec: corev1.PodSpec{
			NodeName:    "node-0",
			Tolerations: []corev1.Toleration{{Key: "restartsim.io/simulated-node", Operator: corev1.TolerationOpExists}},
			Volumes:     []corev1.Volume{{Name: "kube-api-access"}},
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10",
				Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP},
					{Name: "metrics", ContainerPort: 9090, Protocol: corev1.ProtocolTCP}},
				VolumeMounts: []corev1.VolumeMount{{Name: "kube-api-access", MountPath: "/var/run/secrets"}}}},
		},
		Status: corev1.PodStatus{
			Phase: corev1.PodRunning, HostIP: "10.0.0.4", HostIPs: []corev1.HostIP{{IP: "10.0.0.4"}},
			PodIP: "10.0.4.1", PodIPs: []corev1.PodIP{{IP: "10.0.4.1"}}, StartTime: &now, QOSClass: corev1.PodQOSBestEffort,
			Conditions: []corev1.PodCondition{
				{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
				{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}}},
		},
	}
	if gated {
		pod.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: gate}}
	}
	if gateTrue {
		pod.Status.Conditions = append(pod.Status.Conditions, corev1.PodCondition{Type: gate, Status: corev1.ConditionTrue})
	}
	ready := ReadyCondition(pod)
	ready.LastTransitionTime = now
	pod.Status.Conditions = append(pod.Status.Conditions, ready)
	return pod
}

func mustPatch(t *testing.T, pod *corev1.Pod, now time.Time) []byte {
	t.Helper()
	p, err := readyPatch(pod, now)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

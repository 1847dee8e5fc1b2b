package sim

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTrimWatchedPodKeepsWhatTheChecksRead(t *testing.T) {
	gate := corev1.PodConditionType(gatePrefix + "web")
	now := metav1.Now()
	full := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web-0", Namespace: "ns", Labels: map[string]string{"app": "web"},
			Annotations: map[string]string{"a": "b"}, DeletionTimestamp: &now,
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "m"}}},
		Spec: corev1.PodSpec{NodeName: "node-1", ReadinessGates: []corev1.PodReadinessGate{{ConditionType: gate}},
			Containers:  []corev1.Container{{Name: "app", Image: "img", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}}},
			Tolerations: []corev1.Toleration{{Key: "k"}}, Volumes: []corev1.Volume{{Name: "kube-api-access"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}}, HostIP: "10.1.0.1",
			Conditions:        []corev1.PodCondition{{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}, {Type: gate, Status: corev1.ConditionFalse}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true}}},
	}
	obj, err := trimWatchedPod(full.DeepCopy())
	if err != nil {
		t.Fatal(err)
	}
	p := obj.(*corev1.Pod)
	want := full.DeepCopy()
	want.ManagedFields = nil
	want.Spec = corev1.PodSpec{NodeName: "node-1", ReadinessGates: full.Spec.ReadinessGates,
		Containers: []corev1.Container{{Name: "app", Ports: full.Spec.Containers[0].Ports}}}
	want.Status.ContainerStatuses = nil
	if !reflect.DeepEqual(p, want) {
		t.Errorf("trimmed pod\n%+v\nwant\n%+v", p, want)
	}
	if obj, _ := trimWatchedPod("x"); obj != "x" {
		t.Error("a non-pod changed")
	}
}

package kubesim

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Condition reasons, as the kubelet writes them.
const (
	ReasonContainersNotReady     = "ContainersNotReady"
	ReasonReadinessGatesNotReady = "ReadinessGatesNotReady"
)

// PodCondition returns the pod's condition of type t, or nil.
func PodCondition(pod *corev1.Pod, t corev1.PodConditionType) *corev1.PodCondition {
	for i := range pod.Status.Conditions {
		if pod.Status.Conditions[i].Type == t {
			return &pod.Status.Conditions[i]
		}
	}
	return nil
}

// ConditionTrue tells whether the pod has a condition of type t with status True.
func ConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	c := PodCondition(pod, t)
	return c != nil && c.Status == corev1.ConditionTrue
}

// ReadyCondition is the Ready condition the kubelet derives from a pod's status (without
// LastTransitionTime): Ready = ContainersReady && every readiness-gate condition True, with the
// kubelet's reasons and messages.
func ReadyCondition(pod *corev1.Pod) corev1.PodCondition {
	if cr := PodCondition(pod, corev1.ContainersReady); cr == nil || cr.Status != corev1.ConditionTrue {
		c := corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse, Reason: ReasonContainersNotReady}
		if cr != nil {
			c.Status, c.Reason, c.Message = cr.Status, cr.Reason, cr.Message
		}
		return c
	}
	var unready []string
	for _, rg := range pod.Spec.ReadinessGates {
		c := PodCondition(pod, rg.ConditionType)
		switch {
		case c == nil:
			unready = append(unready, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(rg.ConditionType)))
		case c.Status != corev1.ConditionTrue:
			unready = append(unready, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(rg.ConditionType), c.Status))
		}
	}
	if len(unready) > 0 {
		return corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionFalse,
			Reason: ReasonReadinessGatesNotReady, Message: strings.Join(unready, ", ")}
	}
	return corev1.PodCondition{Type: corev1.PodReady, Status: corev1.ConditionTrue}
}

// readyUpToDate tells whether the pod's Ready condition already says what ReadyCondition derives.
func readyUpToDate(pod *corev1.Pod) bool {
	want := ReadyCondition(pod)
	have := PodCondition(pod, corev1.PodReady)
	return have != nil && have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message
}

// inEndpoints is the endpoint controller's rule for which pods appear in EndpointSlices: those with an
// IP that are not terminal; terminating pods stay, marked terminating.
func inEndpoints(pod *corev1.Pod) bool {
	return pod.Status.PodIP != "" && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed
}

// Endpoint is the EndpointSlice endpoint the endpoint controller writes for a pod: ready = pod Ready and
// not terminating, serving = pod Ready, terminating = deletion requested.
func Endpoint(pod *corev1.Pod) discoveryv1.Endpoint {
	ready := ConditionTrue(pod, corev1.PodReady)
	terminating := pod.DeletionTimestamp != nil
	ep := discoveryv1.Endpoint{
		Addresses: []string{pod.Status.PodIP},
		Conditions: discoveryv1.EndpointConditions{
			Ready:       ptr.To(ready && !terminating),
			Serving:     ptr.To(ready),
			Terminating: ptr.To(terminating),
		},
		TargetRef: &corev1.ObjectReference{Kind: "Pod", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
	}
	if pod.Spec.NodeName != "" {
		ep.NodeName = ptr.To(pod.Spec.NodeName)
	}
	return ep
}

// Endpoints are the endpoints of a Service's pods, in pod-name order.
func Endpoints(pods []*corev1.Pod) []discoveryv1.Endpoint {
	sorted := slices.Clone(pods)
	slices.SortFunc(sorted, func(a, b *corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	eps := make([]discoveryv1.Endpoint, 0, len(sorted))
	for _, p := range sorted {
		if inEndpoints(p) {
			eps = append(eps, Endpoint(p))
		}
	}
	return eps
}

// endpointsEqual compares endpoint lists field by field (nil and empty lists are equal).
func endpointsEqual(a, b []discoveryv1.Endpoint) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return equality.Semantic.DeepEqual(a, b)
}

// RunningStatus is the status a kubelet reports once the pod's containers (their statuses given) have
// started: Running on hostIP at podIP, every start condition True, and Ready by the kubelet's rule
// (ReadyCondition), so a pod whose readiness gates are unmet is not Ready.
func RunningStatus(pod *corev1.Pod, hostIP, podIP string, qos corev1.PodQOSClass, containers []corev1.ContainerStatus, now metav1.Time) corev1.PodStatus {
	st := corev1.PodStatus{
		Phase:     corev1.PodRunning,
		HostIP:    hostIP,
		HostIPs:   []corev1.HostIP{{IP: hostIP}},
		PodIP:     podIP,
		PodIPs:    []corev1.PodIP{{IP: podIP}},
		StartTime: &now,
		QOSClass:  qos,
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		},
		ContainerStatuses: containers,
	}
	cp := *pod
	cp.Status = st
	ready := ReadyCondition(&cp)
	ready.LastTransitionTime = now
	st.Conditions = append(st.Conditions, ready)
	return st
}

package nodesim

import (
	"context"
	"net/netip"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/kubesim"
)

// startPods runs the pods bound to a Ready node that the kubelet has not started yet: Running, an
// address from the node's pod range, every container started and ready.
func (s *Simulator) startPods(ctx context.Context, t *tracked, now time.Time) error {
	var pods corev1.PodList
	if err := s.c.List(ctx, &pods, client.MatchingFields{"spec.nodeName": t.name}); err != nil {
		return err
	}
	var node corev1.Node
	for i := range pods.Items {
		p := &pods.Items[i]
		if (p.Status.Phase != corev1.PodPending && p.Status.Phase != "") || p.DeletionTimestamp != nil {
			continue
		}
		if node.Name == "" {
			if err := s.c.Get(ctx, client.ObjectKey{Name: t.name}, &node); err != nil {
				return err
			}
		}
		p.Status = runningStatus(p, nodeIP(&node), t.podIP(), metav1.NewTime(now))
		err := s.c.Status().Update(ctx, p)
		if apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or changed: the next round sees it
			continue
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// podIP hands out the node's next pod address, wrapping within its /24.
func (t *tracked) podIP() string {
	prefix := netip.MustParsePrefix(t.cidr)
	b := prefix.Addr().As4()
	b[3] = byte(t.nextIP)
	t.nextIP++
	if t.nextIP > 254 {
		t.nextIP = 2
	}
	return netip.AddrFrom4(b).String()
}

func nodeIP(n *corev1.Node) string {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			return a.Address
		}
	}
	return ""
}

// runningStatus is what a kubelet reports once a pod's containers run: the kubelet's readiness
// rule (kubesim.ReadyCondition) decides Ready, so a pod with unmet readiness gates is not.
func runningStatus(p *corev1.Pod, hostIP, podIP string, now metav1.Time) corev1.PodStatus {
	st := corev1.PodStatus{
		Phase:  corev1.PodRunning,
		HostIP: hostIP, HostIPs: []corev1.HostIP{{IP: hostIP}},
		PodIP: podIP, PodIPs: []corev1.PodIP{{IP: podIP}},
		StartTime: &now,
		QOSClass:  p.Status.QOSClass, // set by the API server on create
		Conditions: []corev1.PodCondition{
			{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now},
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: now},
		},
	}
	for _, c := range p.Spec.Containers {
		st.ContainerStatuses = append(st.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: true, Started: ptr.To(true),
			ContainerID: "containerd://" + strings.ReplaceAll(string(p.UID), "-", "") + "-" + c.Name,
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	cp := *p
	cp.Status = st
	ready := kubesim.ReadyCondition(&cp)
	ready.LastTransitionTime = now
	st.Conditions = append(st.Conditions, ready)
	return st
}

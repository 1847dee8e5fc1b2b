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

// runningStatus is what a kubelet reports once a pod's containers run, each started and ready.
func runningStatus(p *corev1.Pod, hostIP, podIP string, now metav1.Time) corev1.PodStatus {
	var containers []corev1.ContainerStatus
	for _, c := range p.Spec.Containers {
		containers = append(containers, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image, Ready: true, Started: ptr.To(true),
			ContainerID: "containerd://" + strings.ReplaceAll(string(p.UID), "-", "") + "-" + c.Name,
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	return kubesim.RunningStatus(p, hostIP, podIP, p.Status.QOSClass, containers, now)
}

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

// startPods runs the pods bound to Ready nodes that their kubelets have not started yet: Running, an
// address from the node's pod range, every container started and ready. One list of the Pending pods
// serves every node: a list per node and round would cost the API server
// hundreds of requests a second with hundreds of nodes.
func (s *Simulator) startPods(ctx context.Context, ready map[string]*tracked, now time.Time) error {
	if len(ready) == 0 {
		return nil
	}
	var pods corev1.PodList
	if err := s.c.List(ctx, &pods, client.MatchingFields{"status.phase": string(corev1.PodPending)}); err != nil {
		return err
	}
	nodes := map[string]*corev1.Node{}
	for i := range pods.Items {
		p := &pods.Items[i]
		t := ready[p.Spec.NodeName]
		if t == nil || p.DeletionTimestamp != nil {
			continue
		}
		node := nodes[t.name]
		if node == nil {
			node = &corev1.Node{}
			if err := s.c.Get(ctx, client.ObjectKey{Name: t.name}, node); err != nil {
				return err
			}
			nodes[t.name] = node
		}
		p.Status = runningStatus(p, nodeIP(node), t.podIP(), metav1.NewTime(now))
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

package nodesim

import (
	"fmt"
	"net/netip"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/providerid"
)

// ManagedLabel marks the Nodes this package registered, with the instance ID as its value.
const ManagedLabel = "restartsim.io/simulated-kubelet"

// rootVolume is the root volume Karpenter's EC2NodeClass gives AL2023 nodes by default (20 GiB gp3):
// the node's ephemeral-storage capacity.
var rootVolume = resource.MustParse("20Gi")

// NodeName is the node name an EKS kubelet registers with: the instance's private DNS name,
// ip-10-0-1-2.<region>.compute.internal (ec2.internal in us-east-1).
func NodeName(privateIP, region string) string {
	host := "ip-" + strings.ReplaceAll(privateIP, ".", "-")
	if region == "us-east-1" {
		return host + ".ec2.internal"
	}
	return host + "." + region + ".compute.internal"
}

// ProviderID is the cloud provider's ID of an instance's Node.
func ProviderID(in fakeaws.Instance) string {
	return providerid.Format(in.AvailabilityZone, in.ID)
}

// nodeObject is the Node a kubelet registers for in: NotReady until the join delay has passed.
func nodeObject(in fakeaws.Instance, region string, k Kubelet, podCIDR string, now metav1.Time) (*corev1.Node, error) {
	it, ok := fakeaws.LookupInstanceType(in.InstanceType)
	if !ok {
		return nil, fmt.Errorf("instance %s: unknown instance type %q", in.ID, in.InstanceType)
	}
	name := NodeName(in.PrivateIP, region)
	labels := map[string]string{}
	for key, v := range k.Labels {
		labels[key] = v
	}
	arch := map[string]string{"x86_64": "amd64", "arm64": "arm64"}[it.Architecture]
	for key, v := range map[string]string{
		corev1.LabelHostname: name, corev1.LabelOSStable: "linux", corev1.LabelArchStable: arch,
		corev1.LabelInstanceTypeStable: in.InstanceType, corev1.LabelTopologyZone: in.AvailabilityZone,
		corev1.LabelTopologyRegion: region, ManagedLabel: in.ID,
	} {
		labels[key] = v
	}
	pods := k.MaxPods
	if pods == 0 {
		pods = it.MaxPods()
	}
	capacity, allocatable := resources(it.VCPUs, it.MemoryMiB, pods)
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       corev1.NodeSpec{ProviderID: ProviderID(in), PodCIDR: podCIDR, PodCIDRs: []string{podCIDR}, Taints: k.Taints},
		Status: corev1.NodeStatus{
			Capacity: capacity, Allocatable: allocatable,
			Addresses: []corev1.NodeAddress{
				{Type: corev1.NodeInternalIP, Address: in.PrivateIP},
				{Type: corev1.NodeInternalDNS, Address: name},
				{Type: corev1.NodeHostName, Address: name},
			},
			NodeInfo: corev1.NodeSystemInfo{Architecture: arch, OperatingSystem: "linux", KubeletVersion: "v1.37.2",
				ContainerRuntimeVersion: "containerd://2.1.0", MachineID: in.ID, SystemUUID: in.ID},
		},
	}
	setReady(n, corev1.ConditionFalse, "KubeletNotReady", "container runtime network not ready", now)
	for _, t := range []corev1.NodeConditionType{corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		n.Status.Conditions = append(n.Status.Conditions, corev1.NodeCondition{Type: t, Status: corev1.ConditionFalse,
			Reason: "KubeletHas" + strings.TrimPrefix(string(t), "Node"), LastHeartbeatTime: now, LastTransitionTime: now})
	}
	return n, nil
}

// resources are a node's capacity and allocatable. Allocatable leaves out the kube-reserved and
// eviction threshold EKS's AMIs configure (amazon-eks-ami, nodeadm's kubelet config, also what
// Karpenter predicts a node's allocatable by): memory 11 MiB per pod + 255 MiB; CPU 6% of the first
// core, 1% of the second, 0.5% of the third and fourth, 0.25% of the rest; 1 GiB of ephemeral
// storage; eviction at memory.available 100 MiB and nodefs.available 10%.
func resources(vcpus int32, memoryMiB int64, pods int32) (capacity, allocatable corev1.ResourceList) {
	capacity = corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewQuantity(int64(vcpus), resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(memoryMiB<<20, resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(int64(pods), resource.DecimalSI),
		corev1.ResourceEphemeralStorage: rootVolume,
	}
	reservedMiB := 11*int64(pods) + 255 + 100
	storage := rootVolume.Value() - 1<<30 - rootVolume.Value()/10
	allocatable = corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(int64(vcpus)*1000-reservedCPUMillis(vcpus), resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity((memoryMiB-reservedMiB)<<20, resource.BinarySI),
		corev1.ResourcePods:             capacity[corev1.ResourcePods],
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(storage, resource.BinarySI),
	}
	return capacity, allocatable
}

// reservedCPUMillis is EKS's kube-reserved CPU for a node of vcpus cores.
func reservedCPUMillis(vcpus int32) int64 {
	// Per-mille-of-a-core-times-ten shares for cores 1, 2, 3-4, 5 and on: 60, 10, 5, 2.5 millicores.
	var tenths int64
	for core := int32(1); core <= vcpus; core++ {
		switch {
		case core == 1:
			tenths += 600
		case core == 2:
			tenths += 100
		case core <= 4:
			tenths += 50
		default:
			tenths += 25
		}
	}
	return tenths / 10
}

// setReady sets the node's Ready condition, keeping its transition time when the status holds.
func setReady(n *corev1.Node, status corev1.ConditionStatus, reason, message string, now metav1.Time) {
	c := corev1.NodeCondition{Type: corev1.NodeReady, Status: status, Reason: reason, Message: message,
		LastHeartbeatTime: now, LastTransitionTime: now}
	for i := range n.Status.Conditions {
		if n.Status.Conditions[i].Type == corev1.NodeReady {
			if n.Status.Conditions[i].Status == status {
				c.LastTransitionTime = n.Status.Conditions[i].LastTransitionTime
			}
			n.Status.Conditions[i] = c
			return
		}
	}
	n.Status.Conditions = append(n.Status.Conditions, c)
}

// podCIDR is the n-th node's pod range: /24s of 100.64.0.0/10, the block EKS's custom networking
// commonly gives pods, apart from the VPC's own 10.0.0.0/16 the nodes' addresses come from.
func podCIDR(n int) string {
	n %= 1 << 14
	return netip.AddrFrom4([4]byte{100, byte(64 + n>>8), byte(n), 0}).String() + "/24"
}

package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
)

// The fleet models security groups for pods as the VPC CNI and the VPC resource controller run it: each
// node's instance has a trunk ENI at device index 1, and each pod a branch ENI (its IP, its security
// group) associated with its node's trunk by a VLAN, named in the pod's PodENIAnnotation. A controller
// finds a pod's security groups from the annotation (DescribeNetworkInterfaces by ENI ID) or from the
// pod IP (DescribeNetworkInterfaces by address); both lead to the branch ENI.
const (
	// PodENIAnnotation on a pod lists its branch ENIs as JSON, as the VPC resource controller writes it.
	PodENIAnnotation = "vpc.amazonaws.com/pod-eni"
	trunkDeviceIndex = 1
	// Descriptions and tags the VPC resource controller gives its ENIs.
	trunkDescription  = "aws-k8s-trunk-eni"
	branchDescription = "aws-k8s-branch-eni"
	eniOwnerTag       = "eks:eni:owner"
	eniOwner          = "eks-vpc-resource-controller"
	trunkIDTag        = "vpcresources.k8s.aws/trunk-eni-id"
	vlanIDTag         = "vpcresources.k8s.aws/vlan-id"
)

// BranchENI is one entry of PodENIAnnotation.
type BranchENI struct {
	ENIID      string `json:"eniId"`
	MACAddress string `json:"ifAddress"`
	PrivateIP  string `json:"privateIp"`
	VLANID     int    `json:"vlanId"`
	SubnetCIDR string `json:"subnetCidr"`
}

// clusterTag is the tag key that marks resources of the cluster, kubernetes.io/cluster/<name>.
func clusterTag(cluster string) string { return "kubernetes.io/cluster/" + cluster }

// TrunkENIID is the ID of the node's trunk ENI, derived from the instance ID (no RNG draw, so adding the
// trunk did not move any other planned name).
func (n NodePlan) TrunkENIID() string { return "eni-" + hexDigest("trunk/"+n.InstanceID, 17) }

// podENIAnnotation is the pod's PodENIAnnotation value. The fleet has one subnet, the VPC.
func (f *FleetPlan) podENIAnnotation(p PodPlan) string {
	b, err := json.Marshal([]BranchENI{{ENIID: p.ENIID, MACAddress: branchMAC(p.ENIID), PrivateIP: p.IP,
		VLANID: p.VLANID, SubnetCIDR: f.Spec.VPCCIDR}})
	if err != nil {
		panic(fmt.Sprintf("workload: encoding the pod-eni annotation: %v", err)) // plain strings and ints
	}
	return string(b)
}

// branchMAC is a stable, locally administered MAC for a branch ENI (the annotation's ifAddress and the
// ENI's MacAddress agree).
func branchMAC(eniID string) string {
	h := hexDigest("mac/"+eniID, 10)
	return "0a:" + h[0:2] + ":" + h[2:4] + ":" + h[4:6] + ":" + h[6:8] + ":" + h[8:10]
}

// hexDigest is n hex digits (n ≤ 32) of a hash of s.
func hexDigest(s string, n int) string {
	h := fnv.New128a()
	h.Write([]byte(s))
	return fmt.Sprintf("%032x", h.Sum(nil))[:n]
}

// seedNode seeds the node's EC2 instance (with its primary ENI) and its trunk ENI.
func (f *FleetPlan) seedNode(ctx context.Context, live *liveState, n NodePlan) error {
	sg := live.sgIDs[n.SecurityGroup]
	if err := live.opts.AWS.SeedInstance(ctx, n.InstanceID, n.PrivateIP, []string{sg}); err != nil {
		return fmt.Errorf("seeding instance %s: %w", n.InstanceID, err)
	}
	trunk := NetworkInterface{ID: n.TrunkENIID(), PrivateIPs: []string{n.TrunkIP}, SecurityGroupIDs: []string{sg},
		InterfaceType: "trunk", AvailabilityZone: n.Zone, InstanceID: n.InstanceID, DeviceIndex: trunkDeviceIndex,
		Description: trunkDescription, Tags: map[string]string{eniOwnerTag: eniOwner, clusterTag(f.Spec.ClusterName): "owned"}}
	if err := live.opts.AWS.SeedNetworkInterface(ctx, trunk); err != nil {
		return fmt.Errorf("seeding trunk ENI %s of instance %s: %w", trunk.ID, n.InstanceID, err)
	}
	return nil
}

// seedENI seeds the pod's branch ENI on its node's trunk.
func (f *FleetPlan) seedENI(ctx context.Context, live *liveState, p PodPlan) error {
	n := f.node(p.Node)
	branch := NetworkInterface{ID: p.ENIID, PrivateIPs: []string{p.IP}, SecurityGroupIDs: []string{live.sgIDs[p.SecurityGroup]},
		InterfaceType: "branch", AvailabilityZone: n.Zone, MACAddress: branchMAC(p.ENIID), Description: branchDescription,
		Tags: map[string]string{eniOwnerTag: eniOwner, trunkIDTag: n.TrunkENIID(), vlanIDTag: strconv.Itoa(p.VLANID),
			clusterTag(f.Spec.ClusterName): "owned"}}
	if err := live.opts.AWS.SeedNetworkInterface(ctx, branch); err != nil {
		return fmt.Errorf("seeding branch ENI %s of pod %s: %w", p.ENIID, p.Name, err)
	}
	return nil
}

// tagEndpointGroups tags the node and pod security groups (all but the load balancer's, the last) for
// the cluster, as EKS node groups' groups are: a controller lists the groups it may manage rules on by
// this tag, and picks it among several on one ENI.
func (f *FleetPlan) tagEndpointGroups(ctx context.Context, live *liveState) error {
	groups := live.sgIDs[:len(live.sgIDs)-1]
	if err := live.opts.AWS.TagResources(ctx, groups, map[string]string{clusterTag(f.Spec.ClusterName): "owned"}); err != nil {
		return fmt.Errorf("tagging security groups %s: %w", strings.Join(groups, ","), err)
	}
	return nil
}

package workload_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

// Pods carry what a controller reads to find their security groups, and AWS agrees with it: the
// vpc.amazonaws.com/pod-eni annotation names a branch ENI holding the pod IP and the pod's group, on the
// trunk ENI of the pod's node; the node's instance lists its primary ENI and the trunk; the node and pod
// groups are tagged for the cluster.
func TestPodsCarryBranchENIs(t *testing.T) {
	k8s := cluster(t).Client
	spec := workload.Spec{TGBs: 8, Namespaces: 1, PodsPerService: 3, InstanceShare: 0.25, NetworkingShare: 0.5, Nodes: 2}
	tf := createFleet(t, spec, 11)
	ctx := context.Background()
	api := tf.aws.ec2
	var pods corev1.PodList
	if err := k8s.List(ctx, &pods, client.MatchingLabels(tf.run)); err != nil {
		t.Fatal(err)
	}
	var nodes corev1.NodeList
	if err := k8s.List(ctx, &nodes, client.MatchingLabels(tf.run)); err != nil {
		t.Fatal(err)
	}

	trunkOf := map[string]string{} // node name → trunk ENI ID, from DescribeInstances
	for _, n := range nodes.Items {
		id := n.Spec.ProviderID[strings.LastIndexByte(n.Spec.ProviderID, '/')+1:]
		out, err := api.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: []string{id}})
		if err != nil {
			t.Fatal(err)
		}
		enis := out.Reservations[0].Instances[0].NetworkInterfaces
		if len(enis) != 2 || aws.ToInt32(enis[0].Attachment.DeviceIndex) != 0 || aws.ToString(enis[0].PrivateIpAddress) != n.Status.Addresses[0].Address ||
			aws.ToString(enis[0].Groups[0].GroupId) != n.Annotations[tgbexpect.SecurityGroupsAnnotation] ||
			aws.ToString(enis[1].InterfaceType) != "trunk" || aws.ToInt32(enis[1].Attachment.DeviceIndex) != 1 {
			t.Fatalf("node %s: network interfaces %+v", n.Name, enis)
		}
		trunkOf[n.Name] = aws.ToString(enis[1].NetworkInterfaceId)
	}

	entries := map[string]workload.BranchENI{}
	podByENI := map[string]corev1.Pod{}
	var ids []string
	for _, p := range pods.Items {
		var got []workload.BranchENI
		if err := json.Unmarshal([]byte(p.Annotations[workload.PodENIAnnotation]), &got); err != nil || len(got) != 1 {
			t.Fatalf("pod %s: %s = %q (%v)", p.Name, workload.PodENIAnnotation, p.Annotations[workload.PodENIAnnotation], err)
		}
		e := got[0]
		if e.PrivateIP != p.Status.PodIP || !strings.HasPrefix(e.ENIID, "eni-") || len(e.MACAddress) != 17 || e.VLANID < 1 || e.SubnetCIDR != "10.0.0.0/16" {
			t.Fatalf("pod %s (IP %s): annotation %+v", p.Name, p.Status.PodIP, e)
		}
		entries[e.ENIID], podByENI[e.ENIID] = e, p
		ids = append(ids, e.ENIID)
	}
	// As a reader of the annotation asks: the ENIs by ID.
	out, err := api.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{NetworkInterfaceIds: ids})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.NetworkInterfaces) != len(pods.Items) {
		t.Fatalf("%d ENIs for %d pods", len(out.NetworkInterfaces), len(pods.Items))
	}
	vlans := map[string][]int{}
	for _, n := range out.NetworkInterfaces {
		id := aws.ToString(n.NetworkInterfaceId)
		p, e := podByENI[id], entries[id]
		tags := map[string]string{}
		for _, tg := range n.TagSet {
			tags[aws.ToString(tg.Key)] = aws.ToString(tg.Value)
		}
		if n.InterfaceType != ec2types.NetworkInterfaceTypeBranch || n.Status != ec2types.NetworkInterfaceStatusInUse || n.Attachment != nil ||
			aws.ToString(n.PrivateIpAddress) != p.Status.PodIP || aws.ToString(n.MacAddress) != e.MACAddress || len(n.Groups) != 1 ||
			aws.ToString(n.Groups[0].GroupId) != p.Annotations[tgbexpect.SecurityGroupsAnnotation] ||
			tags["vpcresources.k8s.aws/trunk-eni-id"] != trunkOf[p.Spec.NodeName] || tags["kubernetes.io/cluster/restartsim"] != "owned" {
			t.Errorf("pod %s on %s: ENI %+v tags %v", p.Name, p.Spec.NodeName, n, tags)
		}
		vlans[p.Spec.NodeName] = append(vlans[p.Spec.NodeName], e.VLANID)
	}
	for node, v := range vlans {
		if slices.Sort(v); len(slices.Compact(slices.Clone(v))) != len(v) {
			t.Errorf("node %s: VLAN IDs %v repeat", node, v)
		}
	}
	// As a reader of pod IPs asks: the address finds the branch ENI alone.
	p := pods.Items[0]
	byIP, err := api.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{Filters: []ec2types.Filter{
		{Name: aws.String("vpc-id"), Values: []string{tf.aws.srv.DefaultVPCID()}},
		{Name: aws.String("addresses.private-ip-address"), Values: []string{p.Status.PodIP}}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(byIP.NetworkInterfaces) != 1 || byIP.NetworkInterfaces[0].InterfaceType != ec2types.NetworkInterfaceTypeBranch {
		t.Fatalf("ENIs holding %s: %+v", p.Status.PodIP, byIP.NetworkInterfaces)
	}

	// The cluster's endpoint groups, as a controller lists them to clean up rules: node and pod groups,
	// not the load balancer's.
	sgs, err := api.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{Filters: []ec2types.Filter{
		{Name: aws.String("tag:kubernetes.io/cluster/restartsim"), Values: []string{"owned", "shared"}},
		{Name: aws.String("vpc-id"), Values: []string{tf.aws.srv.DefaultVPCID()}}}})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range sgs.SecurityGroups {
		names = append(names, aws.ToString(g.GroupName))
	}
	slices.Sort(names)
	if want := tf.SecurityGroupNames[:len(tf.SecurityGroupNames)-1]; !slices.Equal(names, want) {
		t.Fatalf("cluster-tagged groups %v, want %v", names, want)
	}
}

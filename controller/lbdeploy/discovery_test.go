package lbdeploy_test

import (
	"reflect"
	"sort"
	"strconv"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
)

// createForeignTargetGroup makes a target group the deployer must leave alone.
func (e *env) createForeignTargetGroup(t *testing.T, name string, tags map[string]string) string {
	t.Helper()
	var ts []elbtypes.Tag
	for k, v := range tags {
		ts = append(ts, elbtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
	}
	out, err := e.elb.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{
		Name: aws.String(name), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80),
		VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnumIp, Tags: ts,
	})
	if err != nil {
		t.Fatal(err)
	}
	return aws.ToString(out.TargetGroups[0].TargetGroupArn)
}

func TestDiscoveryReadsTagsInBatchesOf20AndKeepsOthersResources(t *testing.T) {
	e := newEnv(t)
	otherCluster := e.createForeignTargetGroup(t, "other-cluster", map[string]string{
		lbmodel.TagCluster: "elsewhere", "ingress.k8s.aws/stack": "shop/web", "ingress.k8s.aws/resource": "shop/web-cart:80"})
	for i := range 44 {
		e.createForeignTargetGroup(t, "unrelated-"+strconv.Itoa(i), nil)
	}
	n := e.srv.Recorder().Len()
	e.deploy(t, newShop().stack(t))
	// No load balancer under the model's name yet: a full scan of 45 target groups.
	if got := count(e.operations(n), "DescribeTags"); got != 3 {
		t.Fatalf("DescribeTags called %d times for 45 ARNs, want 3 batches of at most 20", got)
	}
	n = e.srv.Recorder().Len()
	e.deploy(t, newShop().stack(t))
	if got := count(e.operations(n), "DescribeTags"); got != 1 { // found by name: 1 load balancer, 2 target groups
		t.Fatalf("DescribeTags called %d times for the stack's 3 resources among 48, want 1", got)
	}
	if err := e.dep.Delete(ctx, lbmodel.StackID{Kind: lbmodel.KindIngress, Name: "shop/web"}); err != nil {
		t.Fatal(err)
	}
	if tgs := e.srv.TargetGroups(); len(tgs) != 45 || !containsARN(tgs, otherCluster) {
		t.Fatalf("%d target groups left after delete, want the 45 of others including %s", len(tgs), otherCluster)
	}
}

func containsARN(tgs []fakeaws.TargetGroup, arn string) bool {
	for _, tg := range tgs {
		if tg.ARN == arn {
			return true
		}
	}
	return false
}

func TestSubnetDiscoveryOnePerZoneSkippingOtherClusters(t *testing.T) {
	e := newEnv(t)
	seed := func(id, cidr, zone string, tags ...fakeaws.Tag) {
		if _, err := e.srv.SeedSubnet(fakeaws.Subnet{ID: id, CIDR: cidr, AvailabilityZone: zone, Tags: tags}); err != nil {
			t.Fatal(err)
		}
	}
	role := fakeaws.Tag{Key: "kubernetes.io/role/internal-elb", Value: "1"}
	seed("subnet-000000000000000a1", "10.0.128.0/24", "us-west-2a", role, fakeaws.Tag{Key: "kubernetes.io/cluster/elsewhere", Value: "owned"})
	seed("subnet-zzzzzzzzzzzzzzza2", "10.0.129.0/24", "us-west-2a", role, fakeaws.Tag{Key: "kubernetes.io/cluster/" + cluster, Value: "shared"})
	seed("subnet-000000000000000d1", "10.0.130.0/24", "us-west-2d") // no role tag
	var want []string
	for _, sn := range e.srv.Subnets() {
		if sn.DefaultForAZ && sn.AvailabilityZone != "us-west-2a" {
			want = append(want, sn.ID)
		}
	}
	want = append(want, "subnet-zzzzzzzzzzzzzzza2")
	sort.Strings(want)
	e.deploy(t, newShop().stack(t))
	var got []string
	for _, m := range e.srv.LoadBalancers()[0].Subnets {
		got = append(got, m.SubnetID)
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("load balancer subnets = %v, want %v (this cluster's in zone a, the defaults in b and c)", got, want)
	}
}

func TestSubnetChangeSetsSubnets(t *testing.T) {
	e := newEnv(t)
	s := newShop()
	e.deploy(t, s.stack(t))
	var two []string
	for _, sn := range e.srv.Subnets()[:2] {
		two = append(two, sn.ID)
	}
	s.ing.Annotations[lbmodel.AnnotationSubnets] = two[0] + "," + two[1]
	n := e.srv.Recorder().Len()
	e.deploy(t, s.stack(t))
	if ops := mutations(e.operations(n)); !reflect.DeepEqual(ops, []string{"SetSubnets"}) {
		t.Fatalf("subnet change called %v, want SetSubnets only", ops)
	}
}

package workload_test

import (
	"math/rand/v2"
	"net/netip"
	"reflect"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/workload"
)

func planSpec() workload.Spec {
	return workload.Spec{TGBs: 200, Namespaces: 1, PodsPerService: 3, InstanceShare: 0.25, ReadinessGateShare: 0.5,
		NetworkingShare: 0.4, Nodes: 5, SecurityGroups: 3}
}

func seeded(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func TestPlanDeterministic(t *testing.T) {
	a, b := workload.Plan(planSpec(), seeded(42)), workload.Plan(planSpec(), seeded(42))
	if !reflect.DeepEqual(a.TGBs, b.TGBs) || !reflect.DeepEqual(a.Nodes, b.Nodes) ||
		!reflect.DeepEqual(a.Namespaces, b.Namespaces) || !reflect.DeepEqual(a.SecurityGroupNames, b.SecurityGroupNames) {
		t.Fatal("same seed gave different plans")
	}
	c := workload.Plan(planSpec(), seeded(43))
	if reflect.DeepEqual(a.TGBs, c.TGBs) || reflect.DeepEqual(a.Nodes, c.Nodes) {
		t.Fatal("different seeds gave the same plan")
	}
}

func TestPlanShape(t *testing.T) {
	f := workload.Plan(planSpec(), seeded(1))
	s := f.Spec
	if len(f.TGBs) != 200 || len(f.Nodes) != 5 || len(f.Namespaces) != 1 || len(f.SecurityGroupNames) != 4 {
		t.Fatalf("counts: tgbs %d nodes %d namespaces %d sgs %d", len(f.TGBs), len(f.Nodes), len(f.Namespaces), len(f.SecurityGroupNames))
	}
	vpc := netip.MustParsePrefix(s.VPCCIDR)
	nodeNet := netip.MustParsePrefix(s.NodeCIDR)
	ips, names := map[string]bool{}, map[string]bool{}
	var instance, gated, ipTGBs, networking int
	nodePorts := map[int32]bool{}
	for _, n := range f.Nodes {
		if !nodeNet.Contains(netip.MustParseAddr(n.PrivateIP)) || !strings.HasPrefix(n.InstanceID, "i-") || len(n.InstanceID) != 19 {
			t.Errorf("node %+v", n)
		}
		if want := "aws:///" + n.Zone + "/" + n.InstanceID; n.ProviderID() != want {
			t.Errorf("providerID %q, want %q", n.ProviderID(), want)
		}
		ips[n.PrivateIP] = true
	}
	for _, tg := range f.TGBs {
		if names[tg.Name] || len(tg.TargetGroupName) > 32 {
			t.Errorf("bad or duplicate name %q / %q", tg.Name, tg.TargetGroupName)
		}
		names[tg.Name] = true
		if len(tg.Pods) != 3 {
			t.Errorf("%s has %d pods", tg.Name, len(tg.Pods))
		}
		for _, p := range tg.Pods {
			a := netip.MustParseAddr(p.IP)
			if ips[p.IP] || !vpc.Contains(a) || nodeNet.Contains(a) {
				t.Errorf("pod IP %s duplicate or outside the pod range", p.IP)
			}
			ips[p.IP] = true
		}
		switch tg.TargetType {
		case v1beta1.TargetTypeInstance:
			instance++
			if tg.ReadinessGate || tg.NodePort < 30000 || tg.NodePort > 32767 || nodePorts[tg.NodePort] {
				t.Errorf("instance TGB %s: gate %v nodePort %d", tg.Name, tg.ReadinessGate, tg.NodePort)
			}
			nodePorts[tg.NodePort] = true
		default:
			ipTGBs++
			if tg.ReadinessGate {
				gated++
			}
		}
		if tg.Networking != workload.NetworkingNone {
			networking++
		}
	}
	if instance != 50 || gated != 75 || networking != 80 {
		t.Fatalf("instance %d (want 50), gated %d of %d ip (want 75), networking %d (want 80)", instance, gated, ipTGBs, networking)
	}
}

func TestSpecValidate(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(*workload.Spec)
		field  string
	}{
		{"ok", func(*workload.Spec) {}, ""},
		{"negative tgbs", func(s *workload.Spec) { s.TGBs = -1 }, "tgbs"},
		{"no namespaces", func(s *workload.Spec) { s.Namespaces = 0 }, "namespaces"},
		{"share above 1", func(s *workload.Spec) { s.InstanceShare = 1.5 }, "instanceShare"},
		{"too many instance TGBs", func(s *workload.Spec) { s.TGBs, s.InstanceShare = 3000, 1 }, "instanceShare"},
		{"bad vpc id", func(s *workload.Spec) { s.VpcID = "vpc-XYZ" }, "vpcID"},
		{"node cidr outside vpc", func(s *workload.Spec) { s.NodeCIDR = "192.168.0.0/24" }, "nodeCIDR"},
		{"too many nodes", func(s *workload.Spec) { s.Nodes = 300; s.NodeCIDR = "10.0.0.0/24" }, "nodes"},
		{"pods do not fit", func(s *workload.Spec) { s.VPCCIDR = "10.0.0.0/20"; s.TGBs = 2000 }, "podsPerService"},
		{"bad prefix", func(s *workload.Spec) { s.NamespacePrefix = "Bad_Prefix" }, "namespacePrefix"},
		{"bad port", func(s *workload.Spec) { s.Port = 70000 }, "port"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := planSpec()
			tc.mutate(&s)
			err := s.WithDefaults().Validate()
			switch {
			case tc.field == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.field != "" && (err == nil || !strings.Contains(err.Error(), tc.field+":")):
				t.Fatalf("error %v; want one naming %s", err, tc.field)
			}
		})
	}
}

func TestPodIPsSkipNodeRangeAndNetworkAddresses(t *testing.T) {
	f := workload.Plan(workload.Spec{TGBs: 400, Namespaces: 2, PodsPerService: 1, Nodes: 1, NodeCIDR: "10.0.0.0/24"}, seeded(3))
	if got := f.TGBs[0].Pods[0].IP; got != "10.0.1.1" {
		t.Fatalf("first pod IP %s, want 10.0.1.1", got)
	}
	for _, tg := range f.TGBs {
		if ip := tg.Pods[0].IP; strings.HasSuffix(ip, ".0") || strings.HasSuffix(ip, ".255") {
			t.Fatalf("network or broadcast address %s handed out", ip)
		}
	}
	if got := f.TGBs[254].Pods[0].IP; got != "10.0.2.1" {
		t.Fatalf("255th pod IP %s, want 10.0.2.1", got)
	}
}

func BenchmarkPlan10k(b *testing.B) {
	spec := workload.Spec{TGBs: 10000, Namespaces: 50, PodsPerService: 3, InstanceShare: 0.1, ReadinessGateShare: 0.3, NetworkingShare: 0.3, Nodes: 50}
	for b.Loop() {
		workload.Plan(spec, seeded(1))
	}
}

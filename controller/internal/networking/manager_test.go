package networking

import (
	"context"
	"sort"
	"testing"
	"time"

	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/controller/internal/awsclient"
)

type fakeEC2 struct {
	rules              map[string]map[string]Rule // sg → owned rules
	eniGroups          map[string][]string
	tags               map[string]map[string]string
	authorized, revoke []string
}

func (f *fakeEC2) PodSecurityGroups(_ context.Context, ips []string) (map[string][]string, error) {
	out := map[string][]string{}
	for _, ip := range ips {
		out[ip] = f.eniGroups[ip]
	}
	return out, nil
}
func (f *fakeEC2) InstanceSecurityGroups(ctx context.Context, ids []string) (map[string][]string, error) {
	return f.PodSecurityGroups(ctx, ids)
}
func (f *fakeEC2) FreshSecurityGroups(ctx context.Context, ids []string, _ time.Duration) (map[string]awsclient.SecurityGroup, error) {
	return f.SecurityGroups(ctx, ids)
}
func (f *fakeEC2) SecurityGroups(_ context.Context, ids []string) (map[string]awsclient.SecurityGroup, error) {
	out := map[string]awsclient.SecurityGroup{}
	for _, id := range ids {
		var rs []Rule
		for _, r := range f.rules[id] {
			rs = append(rs, r)
		}
		out[id] = awsclient.SecurityGroup{ID: id, Tags: f.tags[id], Ingress: Permissions(rs)}
	}
	return out, nil
}
func (f *fakeEC2) Authorize(_ context.Context, sg string, perms []ec2types.IpPermission) error {
	if f.rules[sg] == nil {
		f.rules[sg] = map[string]Rule{}
	}
	for _, r := range OwnedRules(perms) {
		f.rules[sg][r.Key()] = r
		f.authorized = append(f.authorized, sg+" "+r.Key())
	}
	return nil
}
func (f *fakeEC2) Revoke(_ context.Context, sg string, perms []ec2types.IpPermission) error {
	for _, r := range OwnedRules(perms) {
		delete(f.rules[sg], r.Key())
		f.revoke = append(f.revoke, sg+" "+r.Key())
	}
	return nil
}

func tcp(port int32) Rule {
	return Rule{Protocol: "tcp", FromPort: port, ToPort: port, CIDR: "10.0.0.0/8"}
}

func TestSharedSecurityGroup(t *testing.T) {
	f := &fakeEC2{rules: map[string]map[string]Rule{}, eniGroups: map[string][]string{
		"10.1.0.1": {"sg-1"}, "10.1.0.2": {"sg-1"}, "10.1.0.3": {"sg-node", "sg-other"},
	}, tags: map[string]map[string]string{"sg-node": {"kubernetes.io/cluster/c1": "owned"}}}
	live := []string{"ns/a", "ns/b"}
	m := NewManager(Options{EC2: f, ClusterName: "c1", NetworkingTGBs: func(context.Context) ([]string, error) { return live, nil }})
	ctx := context.Background()
	resets := 0
	before := func(context.Context) error { resets++; return nil }

	// A alone after a restart: authorize only, never revoke (B not recomputed yet).
	f.rules["sg-1"] = map[string]Rule{tcp(9090).Key(): tcp(9090)}
	if err := m.Reconcile(ctx, Request{TGB: "ns/a", IPs: []string{"10.1.0.1"}, Rules: []Rule{tcp(80), tcp(8080)}, BeforeMutate: before}); err != nil {
		t.Fatal(err)
	}
	if len(f.revoke) != 0 || len(f.authorized) != 2 || resets != 1 {
		t.Fatalf("unsynced: authorized %v revoked %v resets %d", f.authorized, f.revoke, resets)
	}
	if err := m.Reconcile(ctx, Request{TGB: "ns/b", IPs: []string{"10.1.0.2"}, Rules: []Rule{tcp(80), tcp(9090)}, BeforeMutate: before}); err != nil {
		t.Fatal(err)
	}
	if len(f.authorized) != 2 || len(f.revoke) != 0 || resets != 1 {
		t.Fatalf("B changes nothing: authorized %v revoked %v resets %d", f.authorized, f.revoke, resets)
	}
	live = []string{"ns/b"}
	if err := m.Remove(ctx, Request{TGB: "ns/a"}); err != nil {
		t.Fatal(err)
	}
	if len(f.revoke) != 1 || f.revoke[0] != "sg-1 "+tcp(8080).Key() {
		t.Fatalf("remove A revoked %v, want only 8080", f.revoke)
	}
	// Several groups on the ENI: the cluster-tagged one wins.
	if err := m.Reconcile(ctx, Request{TGB: "ns/b", IPs: []string{"10.1.0.2", "10.1.0.3"}, Rules: []Rule{tcp(80), tcp(9090)}}); err != nil {
		t.Fatal(err)
	}
	if len(f.rules["sg-node"]) != 2 || len(f.rules["sg-other"]) != 0 {
		t.Fatalf("tag pick: %v", f.rules)
	}
}

func TestRulesRoundTrip(t *testing.T) {
	rs := []Rule{tcp(80), {Protocol: "udp", FromPort: 0, ToPort: 65535, SourceSG: "sg-lb"}, {Protocol: "tcp", FromPort: 443, ToPort: 443, CIDR: "fd00::/8"}}
	got := OwnedRules(Permissions(rs))
	sort.Slice(rs, func(i, j int) bool { return rs[i].Key() < rs[j].Key() })
	if len(got) != 3 {
		t.Fatalf("got %v", got)
	}
	for i := range rs {
		if got[i] != rs[i] {
			t.Fatalf("got %v want %v", got, rs)
		}
	}
	// rules without our description are not ours.
	if len(OwnedRules([]ec2types.IpPermission{{IpRanges: []ec2types.IpRange{{}}}})) != 0 {
		t.Fatal("foreign rule owned")
	}
}

func TestMissing(t *testing.T) {
	f := &fakeEC2{rules: map[string]map[string]Rule{"sg-1": {tcp(80).Key(): tcp(80)}}, eniGroups: map[string][]string{"10.1.0.1": {"sg-1"}}}
	m := NewManager(Options{EC2: f})
	ctx := context.Background()
	got, err := m.Missing(ctx, Request{TGB: "ns/a", IPs: []string{"10.1.0.1"}, Rules: []Rule{tcp(80), tcp(8080)}}, time.Minute)
	if err != nil || len(got) != 1 || got[0] != "sg-1" {
		t.Fatalf("Missing = %v, %v; want [sg-1]", got, err)
	}
	if got, err := m.Missing(ctx, Request{TGB: "ns/a", IPs: []string{"10.1.0.1"}, Rules: []Rule{tcp(80)}}, time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("Missing = %v, %v; want none", got, err)
	}
	if len(f.authorized)+len(f.revoke) != 0 {
		t.Fatal("Missing mutated")
	}
}

// TestBindingsUnknown: while the bindings with rules are unknown (the resume fast path), a
// reconcile adds its rules but revokes none, not even its own removed ones.
func TestBindingsUnknown(t *testing.T) {
	f := &fakeEC2{rules: map[string]map[string]Rule{"sg-1": {tcp(9090).Key(): tcp(9090)}}, eniGroups: map[string][]string{"10.1.0.1": {"sg-1"}}}
	m := NewManager(Options{EC2: f, NetworkingTGBs: func(context.Context) ([]string, error) { return nil, ErrBindingsUnknown }})
	ctx := context.Background()
	if err := m.Reconcile(ctx, Request{TGB: "ns/a", IPs: []string{"10.1.0.1"}, Rules: []Rule{tcp(80)}}); err != nil {
		t.Fatal(err)
	}
	if len(f.authorized) != 1 || len(f.revoke) != 0 {
		t.Fatalf("authorized %v revoked %v; want 80 added, 9090 kept", f.authorized, f.revoke)
	}
	if err := m.Reconcile(ctx, Request{TGB: "ns/a", IPs: []string{"10.1.0.1"}}); err != nil {
		t.Fatal(err)
	}
	if len(f.revoke) != 0 {
		t.Fatalf("revoked %v while the bindings are unknown", f.revoke)
	}
}

// TestAddOnly: a request that cannot know every binding's rules adds its rules but revokes none,
// however many bindings NetworkingTGBs lists.
func TestAddOnly(t *testing.T) {
	f := &fakeEC2{rules: map[string]map[string]Rule{"sg-1": {tcp(9090).Key(): tcp(9090)}}, eniGroups: map[string][]string{"10.1.0.1": {"sg-1"}}}
	m := NewManager(Options{EC2: f, NetworkingTGBs: func(context.Context) ([]string, error) { return nil, nil }})
	ctx := context.Background()
	if err := m.Reconcile(ctx, Request{TGB: "ns/a", IPs: []string{"10.1.0.1"}, Rules: []Rule{tcp(80)}, AddOnly: true}); err != nil {
		t.Fatal(err)
	}
	if len(f.authorized) != 1 || len(f.revoke) != 0 {
		t.Fatalf("authorized %v revoked %v; want 80 added, 9090 kept", f.authorized, f.revoke)
	}
	if err := m.Remove(ctx, Request{TGB: "ns/a", AddOnly: true}); err != nil {
		t.Fatal(err)
	}
	if len(f.revoke) != 0 {
		t.Fatalf("revoked %v on an add-only removal", f.revoke)
	}
}

package state

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newStore() *Store {
	return New(Config{AccountID: "123456789012", Region: "us-west-2", MaxTargetGroups: 1000, Seed: 7})
}

func code(err error) string {
	var qe *query.Error
	if errors.As(err, &qe) {
		return qe.Code
	}
	return fmt.Sprint(err)
}

func createTG(t *testing.T, s *Store, name string, port int32) TargetGroup {
	t.Helper()
	tg, err := s.CreateTargetGroup(TargetGroup{Name: name, Protocol: "HTTP", Port: port, VPCID: s.DefaultVPCID(), TargetType: "ip"}, now)
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

func seedENI(t *testing.T, s *Store, e ENI) {
	t.Helper()
	if _, err := s.SeedENI(e); err != nil {
		t.Fatal(err)
	}
}

func names(tgs []TargetGroup) []string {
	var out []string
	for _, tg := range tgs {
		out = append(out, tg.Name)
	}
	return out
}

func eniIDs(es []ENI) []string {
	out := []string{}
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// The name index keeps CreateTargetGroup idempotent, and forgets a deleted group's name so it can be reused.
func TestTargetGroupNameIndex(t *testing.T) {
	s := newStore()
	a := createTG(t, s, "a", 80)
	if again := createTG(t, s, "a", 80); again.ARN != a.ARN {
		t.Fatalf("same name and settings: ARN %s, want %s", again.ARN, a.ARN)
	}
	_, err := s.CreateTargetGroup(TargetGroup{Name: "a", Protocol: "HTTP", Port: 81, VPCID: s.DefaultVPCID(), TargetType: "ip"}, now)
	if code(err) != "DuplicateTargetGroupName" {
		t.Fatalf("other settings: %v", err)
	}
	if err := s.DeleteTargetGroup(a.ARN); err != nil {
		t.Fatal(err)
	}
	if _, missing := s.TargetGroupsByName([]string{"a"}); missing != 0 {
		t.Fatal("deleted group still found by name")
	}
	b := createTG(t, s, "a", 81) // the name is free again, with any settings
	if b.ARN == a.ARN {
		t.Fatal("reused ARN")
	}
	got, missing := s.TargetGroupsByName([]string{"a", "a"})
	if missing != -1 || len(got) != 2 || got[0].ARN != b.ARN {
		t.Fatalf("by name: %v %d", got, missing)
	}
	if _, missing := s.TargetGroupsByARN([]string{b.ARN, a.ARN}); missing != 1 {
		t.Fatalf("by ARN: missing %d, want 1", missing)
	}
}

// The listing order survives adds and deletes between reads, and a page copies only its window.
func TestTargetGroupOrder(t *testing.T) {
	s := newStore()
	arns := map[string]string{}
	for _, n := range []string{"m", "c", "x", "a"} {
		arns[n] = createTG(t, s, n, 80).ARN
	}
	if got := names(s.TargetGroups()); !slices.Equal(got, []string{"a", "c", "m", "x"}) {
		t.Fatalf("order %v", got)
	}
	if err := s.DeleteTargetGroup(arns["c"]); err != nil {
		t.Fatal(err)
	}
	createTG(t, s, "b", 80)
	createTG(t, s, "c", 80) // re-created under the same name, a new ARN
	if err := s.DeleteTargetGroup(arns["x"]); err != nil {
		t.Fatal(err)
	}
	page, total := s.TargetGroupPage(1, 2)
	if total != 4 || !slices.Equal(names(page), []string{"b", "c"}) {
		t.Fatalf("page %v of %d", names(page), total)
	}
	if page, total = s.TargetGroupPage(9, 2); len(page) != 0 || total != 4 {
		t.Fatalf("past the end: %v of %d", names(page), total)
	}
}

// The IP index follows ENI replacement: the old IPs stop matching, the new ones start.
func TestENIPrivateIPIndex(t *testing.T) {
	s := newStore()
	seedENI(t, s, ENI{ID: "eni-b", PrivateIPs: []string{"10.0.0.1", "10.0.0.2", "10.0.0.2"}})
	seedENI(t, s, ENI{ID: "eni-a", PrivateIPs: []string{"10.0.0.2"}})
	if got := eniIDs(s.ENIsByPrivateIP([]string{"10.0.0.2", "10.0.0.1"})); !slices.Equal(got, []string{"eni-a", "eni-b"}) {
		t.Fatalf("shared IP: %v", got)
	}
	seedENI(t, s, ENI{ID: "eni-b", PrivateIPs: []string{"10.0.0.3"}}) // replaced with other IPs
	if got := eniIDs(s.ENIsByPrivateIP([]string{"10.0.0.1"})); len(got) != 0 {
		t.Fatalf("old IP still indexed: %v", got)
	}
	if got := eniIDs(s.ENIsByPrivateIP([]string{"10.0.0.2"})); !slices.Equal(got, []string{"eni-a"}) {
		t.Fatalf("shared IP after replace: %v", got)
	}
	if got := eniIDs(s.ENIsByPrivateIP([]string{"10.0.0.3"})); !slices.Equal(got, []string{"eni-b"}) {
		t.Fatalf("new IP: %v", got)
	}
	if _, err := s.SeedInstance(Instance{ID: "i-1", PrivateIP: "10.0.9.9"}); err != nil {
		t.Fatal(err)
	}
	if got := eniIDs(s.ENIsByPrivateIP([]string{"10.0.9.9"})); !slices.Equal(got, []string{"eni-1"}) {
		t.Fatalf("instance IP: %v", got)
	}
	if got := eniIDs(s.ENIs()); !slices.Equal(got, []string{"eni-1", "eni-a", "eni-b"}) {
		t.Fatalf("ENIs %v", got)
	}
	if _, missing := s.ENIsByID([]string{"eni-a", "eni-zz"}); missing != 1 {
		t.Fatalf("missing %d", missing)
	}
}

// DeleteSecurityGroup's dependency check counts ENI uses; replacing the last user frees the group.
func TestSecurityGroupUseCount(t *testing.T) {
	s := newStore()
	sg, err := s.CreateSecurityGroup("pods", "d", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	seedENI(t, s, ENI{ID: "eni-p", PrivateIPs: []string{"10.0.0.1"}, SecurityGroupIDs: []string{sg.ID}})
	if _, err := s.DeleteSecurityGroup(sg.ID, ""); code(err) != "DependencyViolation" {
		t.Fatalf("in use: %v", err)
	}
	seedENI(t, s, ENI{ID: "eni-p", PrivateIPs: []string{"10.0.0.1"}})
	if _, err := s.DeleteSecurityGroup(sg.ID, ""); err != nil {
		t.Fatalf("no longer used: %v", err)
	}
}

// A Clone's indexes point at the clone's resources and evolve apart from the original's.
func TestCloneIndexes(t *testing.T) {
	s := newStore()
	a := createTG(t, s, "a", 80)
	seedENI(t, s, ENI{ID: "eni-p", PrivateIPs: []string{"10.0.0.1"}})
	c, err := s.Clone(Config{AccountID: "123456789012", Region: "us-west-2"})
	if err != nil {
		t.Fatal(err)
	}
	if again := createTG(t, c, "a", 80); again.ARN != a.ARN {
		t.Fatal("clone lost the name index: create-by-name is not idempotent")
	}
	if got := eniIDs(c.ENIsByPrivateIP([]string{"10.0.0.1"})); !slices.Equal(got, []string{"eni-p"}) {
		t.Fatalf("clone lost the IP index: %v", got)
	}
	if err := c.DeleteTargetGroup(a.ARN); err != nil {
		t.Fatal(err)
	}
	seedENI(t, c, ENI{ID: "eni-p", PrivateIPs: []string{"10.0.0.2"}})
	if again := createTG(t, s, "a", 80); again.ARN != a.ARN {
		t.Fatal("a delete in the clone reached the original's name index")
	}
	if got := eniIDs(s.ENIsByPrivateIP([]string{"10.0.0.1"})); !slices.Equal(got, []string{"eni-p"}) {
		t.Fatalf("a seed in the clone reached the original's IP index: %v", got)
	}
	if got := names(c.TargetGroups()); len(got) != 0 {
		t.Fatalf("clone order %v", got)
	}
	checkIndexes(t, s)
	checkIndexes(t, c)
}

// After random writes, every incrementally kept index equals one rebuilt from the data.
func TestIndexesMatchRebuild(t *testing.T) {
	s := newStore()
	rng := rand.New(rand.NewPCG(1, 2))
	sg, err := s.CreateSecurityGroup("pods", "d", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	var arns []string
	for i := range 2000 {
		switch rng.IntN(5) {
		case 0:
			arns = append(arns, createTG(t, s, fmt.Sprintf("tg-%d", rng.IntN(50)), 80).ARN)
		case 1:
			if len(arns) > 0 {
				if err := s.DeleteTargetGroup(arns[rng.IntN(len(arns))]); err != nil {
					t.Fatal(err)
				}
			}
		case 2:
			e := ENI{ID: fmt.Sprintf("eni-p%d", rng.IntN(40))}
			for range 1 + rng.IntN(3) {
				e.PrivateIPs = append(e.PrivateIPs, fmt.Sprintf("10.0.0.%d", rng.IntN(30)))
			}
			if rng.IntN(2) == 0 {
				e.SecurityGroupIDs = []string{sg.ID}
			}
			if rng.IntN(2) == 0 { // attach, moving it between instances; a taken device index is refused
				e.InstanceID, e.DeviceIndex = fmt.Sprintf("i-%d", rng.IntN(10)), int32(1+rng.IntN(3))
			}
			if _, err := s.SeedENI(e); err != nil && code(err) != "InvalidParameterValue" && code(err) != "InvalidInstanceID.NotFound" {
				t.Fatal(err)
			}
		case 3:
			if _, err := s.SeedInstance(Instance{ID: fmt.Sprintf("i-%d", rng.IntN(10)), PrivateIP: fmt.Sprintf("10.0.1.%d", i%200)}); err != nil {
				t.Fatal(err)
			}
		}
		if i%97 == 0 { // reads in between exercise the lazy merge
			s.TargetGroups()
			s.ENIs()
		}
	}
	checkIndexes(t, s)
}

// checkIndexes compares s's indexes with ones rebuilt from its data, and its orders with a plain sort.
func checkIndexes(t *testing.T, s *Store) {
	t.Helper()
	r := &Store{tgs: s.tgs, enis: s.enis, instances: s.instances}
	r.reindex()
	if !maps.Equal(s.tgByName, r.tgByName) {
		t.Errorf("tgByName %v, rebuilt %v", s.tgByName, r.tgByName)
	}
	if !maps.Equal(s.sgUsers, r.sgUsers) {
		t.Errorf("sgUsers %v, rebuilt %v", s.sgUsers, r.sgUsers)
	}
	if !maps.EqualFunc(s.eniByIP, r.eniByIP, func(a, b []string) bool { return slices.Equal(sorted(a), sorted(b)) }) {
		t.Errorf("eniByIP %v, rebuilt %v", s.eniByIP, r.eniByIP)
	}
	if !maps.EqualFunc(s.eniByInstance, r.eniByInstance, func(a, b []string) bool { return slices.Equal(sorted(a), sorted(b)) }) {
		t.Errorf("eniByInstance %v, rebuilt %v", s.eniByInstance, r.eniByInstance)
	}
	var want []tgKey
	for arn, e := range s.tgs {
		want = append(want, tgKey{e.Name, arn})
	}
	slices.SortFunc(want, cmpTGKey)
	if got := s.tgOrder.keys(func(k tgKey) bool { return s.tgs[k.arn] != nil }); !slices.Equal(got, want) {
		t.Errorf("tgOrder %v, want %v", got, want)
	}
	if got := s.eniOrder.keys(nil); !slices.Equal(got, sortedKeys(s.enis)) {
		t.Errorf("eniOrder %v", got)
	}
	if got := s.instOrder.keys(nil); !slices.Equal(got, sortedKeys(s.instances)) {
		t.Errorf("instOrder %v", got)
	}
}

func sorted(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

package sim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/scenario"
)

// ackPaths resolves ACK_BINARY and ACK_CRDS (default: crds beside the binary) from the repository
// root, as the scenarios take them, skipping without ACK_BINARY.
func ackPaths(t *testing.T) {
	t.Helper()
	bin := os.Getenv("ACK_BINARY")
	if bin == "" {
		t.Skip("ACK_BINARY not set: point it at an ACK ELBv2 controller build (e.g. ACK_BINARY=../shared/ack/ack-elbv2-controller, with ACK_CRDS its helm/crds) to run ACK on envtest")
	}
	crds := os.Getenv("ACK_CRDS")
	if crds == "" {
		crds = filepath.Join(filepath.Dir(bin), "crds")
	}
	t.Setenv("ACK_BINARY", fromRepo(t, bin))
	t.Setenv("ACK_CRDS", fromRepo(t, crds))
}

// fromRepo is p, relative to the repository root unless absolute, as an absolute path that exists.
func fromRepo(t *testing.T, p string) string {
	t.Helper()
	if !filepath.IsAbs(p) {
		p = filepath.Join("..", p) // the package directory is sim/
	}
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(a); err != nil {
		t.Fatal(err)
	}
	return a
}

// TestACKRestart runs the shipped scenarios/ack/restart.yaml, scaled down to 40 TargetGroups and
// 3 load balancers with a listener and a rule each, against the unmodified ACK ELBv2 controller:
// it must converge every kind (Synced), and after a crash apply every change made to each kind
// while it was down, each timed by when fakeaws's state showed it.
func TestACKRestart(t *testing.T) {
	ackPaths(t)
	testenv.RequireAssets(t)
	sc, err := scenario.Load("../scenarios/ack/restart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sizes := map[string]int{"targetgroups": 40, "loadbalancers": 3, "listeners": 3, "rules": 3}
	for i := range sc.Fleet.Objects {
		sc.Fleet.Objects[i].Count = sizes[sc.Fleet.Objects[i].Name]
	}
	// Rules forward to the target groups after the listeners': index + 50 in the full fleet.
	rules := &sc.Fleet.Objects[3]
	rules.Template = []byte(strings.Replace(string(rules.Template), "(add .Index 50)", "(add .Index 3)", 1))
	for i := range sc.Timeline {
		if st := &sc.Timeline[i]; st.Kind == scenario.ChurnPatch {
			st.Count = min(st.Count, 1)
		}
	}
	if _, errs := scenario.CompileObjects(sc); len(errs) > 0 {
		t.Fatal(errs)
	}
	st := runSteady(t, sc, 6*time.Minute)
	kinds := map[string]bool{}
	for _, c := range st.Changes {
		if c.LatencySeconds == nil {
			t.Errorf("change %+v was never seen applied", c)
		}
		kinds[strings.SplitN(c.Object, "/", 2)[0]] = true
	}
	if len(kinds) != 4 || st.Summary.BlindTime.Count != len(st.Changes) {
		t.Errorf("changes to %v, blind time %+v of %d: want every kind changed while ACK was down, all the restart's", kinds, st.Summary.BlindTime, len(st.Changes))
	}
	// The replacement waits for the crashed leader's Lease (15 s) before its first call.
	if s := st.Summary.TTFMRSeconds; s == nil || *s < 10 {
		t.Errorf("TTFMR %v: want the Lease's expiry and more", s)
	}
}

// TestACKLifecycle runs the shipped scenarios/ack/lifecycle.yaml, scaled down to 30 TargetGroups,
// against the unmodified ACK ELBv2 controller: the TargetGroups created and deleted while it was
// down must be applied once it is back — a new one synced with its target group in AWS, a deleted
// one gone through ACK's finalizer with no target group left — beside the patches.
func TestACKLifecycle(t *testing.T) {
	ackPaths(t)
	testenv.RequireAssets(t)
	sc, err := scenario.Load("../scenarios/ack/lifecycle.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sc.Fleet.Objects[0].Count = 30
	if _, errs := scenario.CompileObjects(sc); len(errs) > 0 {
		t.Fatal(errs)
	}
	st := runSteady(t, sc, 6*time.Minute)
	kinds := map[string]int{}
	for _, c := range st.Changes {
		if c.LatencySeconds == nil {
			t.Errorf("change %+v was never seen applied", c)
		}
		kinds[c.Kind]++
	}
	if kinds["create"] != 5 || kinds["delete"] != 5 || kinds["patch"] != 6 {
		t.Errorf("changes by kind %v: want 5 creates, 5 deletes, 6 patches", kinds)
	}
}

package sim

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestKarpenterRestart runs the shipped scenarios/karpenter/restart.yaml against the unmodified
// Karpenter (KARPENTER_BINARY, with KARPENTER_CRDS its CRDs, default crds beside it): its pods must run
// on nodes it launched, and every pod created while it was down must be scheduled and Running, its
// first meaningful mutation a launch after the crashed leader's Lease expired.
func TestKarpenterRestart(t *testing.T) {
	bin := os.Getenv("KARPENTER_BINARY")
	if bin == "" {
		t.Skip("KARPENTER_BINARY not set: point it at a Karpenter (AWS provider) build (make karpenter, or ../shared/karpenter/karpenter) to run Karpenter on envtest")
	}
	crds := os.Getenv("KARPENTER_CRDS")
	if crds == "" {
		crds = filepath.Join(filepath.Dir(bin), "crds")
	}
	t.Setenv("KARPENTER_BINARY", fromRepo(t, bin))
	t.Setenv("KARPENTER_CRDS", fromRepo(t, crds))
	testenv.RequireAssets(t)
	sc, err := scenario.Load("../scenarios/karpenter/restart.yaml")
	if err != nil {
		t.Fatal(err)
	}
	st := runSteady(t, sc, 6*time.Minute)
	if len(st.Changes) != 10 || st.Summary.BlindTime.Count != len(st.Changes) {
		t.Fatalf("%d changes, blind time %+v: want the 10 pods created while Karpenter was down, each timed", len(st.Changes), st.Summary.BlindTime)
	}
	for _, c := range st.Changes {
		if c.LatencySeconds == nil {
			t.Errorf("pod %s was never seen Running", c.Object)
		}
	}
	// The replacement waits for the crashed leader's Lease (15 s) before it launches anything.
	if s := st.Summary.TTFMRSeconds; s == nil || *s < 10 {
		t.Errorf("TTFMR %v: want the Lease's expiry and more", s)
	}
	if st.Summary.AWSCalls["CreateFleet"] == 0 {
		t.Errorf("calls %v: want the launches (CreateFleet)", st.Summary.AWSCalls)
	}
}

package sim

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/actions"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestKarpenterRestart runs the shipped scenarios/karpenter/restart.yaml against the unmodified
// Karpenter (KARPENTER_BINARY, with KARPENTER_CRDS its CRDs, default crds beside it): its pods must run
// on nodes it launched, and every pod created while it was down must be scheduled and Running, its
// first meaningful mutation a launch after the crashed leader's Lease expired.
func TestKarpenterRestart(t *testing.T) {
	// A small fleet keeps the test short: 20 pods (2 nodes) instead of 5,000, 10 made while it is down.
	sc := loadKarpenter(t, "restart.yaml", "      count: 5000\n", "      count: 20\n", "group: pods, count: 100,", "group: pods, count: 10,")
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

// TestKarpenterPVDeleted runs scenarios/karpenter/pv-deleted.yaml (karpenter#3169): the replacement's
// cluster state never syncs, nothing is launched for the pods made while it was down, and the run ends
// once nothing has progressed for the wait's stalledAfter, well before its timeout, with those pods
// listed as unapplied (simulate's exit 3) and the "stalled" event in the results.
func TestKarpenterPVDeleted(t *testing.T) {
	sc := loadKarpenter(t, "pv-deleted.yaml")
	wait := sc.Timeline[len(sc.Timeline)-1]
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	rep, err := Run(ctx, Options{Scenario: sc, OutDir: t.TempDir(), Progress: io.Discard, Stdout: io.Discard, NoReport: true})
	var v *results.ViolationError
	if !errors.As(err, &v) || v.Kind != results.ViolationInvariant && v.Kind != results.ViolationUnapplied {
		t.Fatalf("err %v: want the pods unapplied (exit 3)", err)
	}
	st := rep.Results.Strategies[0]
	// The nodes of the warm-up have room for a pod or two; the rest need a launch, which never comes.
	if n := len(st.Unapplied); n == 0 || n != st.MostUnapplied() || len(st.Changes) != 6 {
		t.Fatalf("unapplied %+v of %d changes: want some of the 6 pods made while Karpenter was down", st.Unapplied, len(st.Changes))
	}
	for _, u := range st.Unapplied {
		if !strings.Contains(u.Object, "/app-") {
			t.Errorf("unapplied %s: want a pod of the pods group", u.Object)
		}
	}
	stalled := slices.IndexFunc(st.Events, func(e results.Event) bool { return e.Kind == actions.EventStalled })
	if stalled < 0 || st.Summary.SteadyStateSeconds != nil {
		t.Fatalf("events %+v, steady %v: want the wait to have stalled", st.Events, st.Summary.SteadyStateSeconds)
	}
	ev := st.Events[stalled]
	if quiet := ev.EndSeconds - ev.AtSeconds; quiet < wait.StalledAfter.Seconds() || quiet > wait.StalledAfter.Seconds()+10 {
		t.Errorf("stalled after %.1fs of quiet, want its stalledAfter (%s)", quiet, wait.StalledAfter.Duration)
	}
	if ev.EndSeconds > wait.Timeout.Seconds()/2 {
		t.Errorf("stalled at %.1fs into the run: want well before the wait's timeout (%s)", ev.EndSeconds, wait.Timeout.Duration)
	}
	t.Logf("stalled at %.1fs (quiet since %.1fs); whole run %s", ev.EndSeconds, ev.AtSeconds, time.Since(began).Round(time.Second))
}

// loadKarpenter loads a shipped Karpenter scenario against KARPENTER_BINARY (with KARPENTER_CRDS its
// CRDs, default crds beside it), each replace[i] of its text by replace[i+1], or skips the test
// without KARPENTER_BINARY.
func loadKarpenter(t *testing.T, file string, replace ...string) *scenario.Scenario {
	t.Helper()
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
	path := filepath.Join("../scenarios/karpenter", file)
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(string(text), replace[i]) {
			t.Fatalf("%s has no %q to replace", path, replace[i])
		}
		text = []byte(strings.Replace(string(text), replace[i], replace[i+1], 1))
	}
	sc, err := scenario.Parse(path, text)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

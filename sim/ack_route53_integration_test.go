package sim

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/scaffold"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestACKRoute53Init runs what `restartsim init` writes, unedited, for ACK's Route53 controller
// (ACK_ROUTE53_BINARY, with ACK_ROUTE53_CRDS its helm/crds, default beside the binary) on envtest in the
// default region: it signs Route53 in us-west-2, converges the hosted zones and their records, and after a
// crash applies every change made while it was down, each timed by fakeaws's state.
func TestACKRoute53Init(t *testing.T) {
	bin := os.Getenv("ACK_ROUTE53_BINARY")
	if bin == "" {
		t.Skip("ACK_ROUTE53_BINARY not set: point it at an ACK Route53 controller build (ACK_ROUTE53_CRDS its helm/crds) to run it on envtest")
	}
	testenv.RequireAssets(t)
	crds := os.Getenv("ACK_ROUTE53_CRDS")
	if crds == "" {
		crds = filepath.Join(filepath.Dir(bin), "helm", "crds")
	}
	bin, crds = fromRepo(t, bin), fromRepo(t, crds)
	res, err := scaffold.Generate(context.Background(), scaffold.Options{CRDs: []string{crds}, Kinds: []string{"HostedZone", "RecordSet"}, Binary: bin, Count: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Placeholders) > 0 {
		t.Fatalf("placeholders left: %v", res.Placeholders)
	}
	t.Setenv(res.BinaryEnv, bin)
	sc, err := scenario.Parse("r53.yaml", res.YAML)
	if err != nil {
		t.Fatal(err)
	}
	if sc.AWS.Region != scenario.DefaultRegion {
		t.Fatalf("region %s, want the default", sc.AWS.Region)
	}
	st := runSteady(t, sc, 8*time.Minute)
	kinds := map[string]int{}
	for _, c := range st.Changes {
		if c.LatencySeconds == nil {
			t.Errorf("change %+v was never seen applied", c)
		}
		kinds[strings.SplitN(c.Object, "/", 2)[0]]++
	}
	if kinds["hostedzones"] == 0 || kinds["recordsets"] == 0 || st.Summary.TTFMRSeconds == nil {
		t.Errorf("changes %v, TTFMR %v: want both kinds changed while the controller was down, and timed", kinds, st.Summary.TTFMRSeconds)
	}
}

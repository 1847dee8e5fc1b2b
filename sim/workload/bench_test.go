package workload_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/restartsim/restartsim/sim/workload"
)

// BenchmarkFleetSetup creates a fleet of 300 TGBs (RESTARTSIM_BENCH_TGBS) (3 pods each; instance, gate and networking mixes) and,
// in the same run with the same harness and concurrency, as many plain ConfigMaps as the fleet made
// Kubernetes writes; it reports both rates and their ratio (issue 7: ≥ 0.6).
func BenchmarkFleetSetup(b *testing.B) {
	ctx := context.Background()
	tgbs := benchTGBs()
	for i := range b.N {
		b.StopTimer()
		spec := workload.Spec{TGBs: tgbs, PodsPerService: 3, InstanceShare: 0.1, ReadinessGateShare: 0.3, NetworkingShare: 0.3, Nodes: 10}
		n := fleetSeq.Add(1)
		spec.NamespacePrefix = fmt.Sprintf("b%02d", n)
		spec.NodeCIDR = fmt.Sprintf("10.0.%d.0/24", 200+n)
		f := workload.Plan(spec, seeded(uint64(i)))
		aws := newAWS(b)
		if err := workload.WarmUp(ctx, k8s); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := f.Create(ctx, workload.Options{Client: k8s, AWS: aws, Labels: map[string]string{"restartsim.io/run": spec.NamespacePrefix}})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		raw, err := workload.RawCreateRate(ctx, k8s, st.Writes, workload.DefaultConcurrency, spec.NamespacePrefix+"-raw", nil)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(raw.Rate(), "raw-creates/s")
		b.ReportMetric(st.WriteRate(), "fleet-writes/s")
		b.ReportMetric(st.ObjectRate(), "fleet-objects/s")
		b.ReportMetric(st.WriteRate()/raw.Rate(), "write-ratio")
		b.ReportMetric(st.ObjectRate()/raw.Rate(), "object-ratio")
		b.ReportMetric(float64(st.Writes+st.AWSCalls)/st.Elapsed.Seconds()/raw.Rate(), "step-ratio")
		b.Logf("fleet %+v (%.0f writes/s), raw %d in %v (%.0f/s)", st, st.WriteRate(), raw.Objects, raw.Elapsed, raw.Rate())
	}
}

// benchTGBs is the fleet size of BenchmarkFleetSetup: $RESTARTSIM_BENCH_TGBS, default 300.
func benchTGBs() int {
	if n, err := strconv.Atoi(os.Getenv("RESTARTSIM_BENCH_TGBS")); err == nil && n > 0 {
		return n
	}
	return 300
}

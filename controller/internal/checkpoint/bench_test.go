package checkpoint

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// benchSpec is a realistic TargetGroupBinding spec (IP targets, one networking rule).
func benchSpec() v1beta1.TargetGroupBindingSpec {
	tt := v1beta1.TargetTypeIP
	return v1beta1.TargetGroupBindingSpec{
		TargetGroupARN: "arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/k8s-web-0123456789/0123456789abcdef",
		TargetType:     &tt,
		ServiceRef:     v1beta1.ServiceReference{Name: "web", Port: intstr.FromInt32(80)},
		Networking: &v1beta1.TargetGroupBindingNetworking{Ingress: []v1beta1.NetworkingIngressRule{{
			From:  []v1beta1.NetworkingPeer{{SecurityGroup: &v1beta1.SecurityGroup{GroupID: "sg-0123456789abcdef0"}}},
			Ports: []v1beta1.NetworkingPort{{Port: ptrTo(intstr.FromInt32(8080))}},
		}}},
	}
}

func ptrTo[T any](v T) *T { return &v }

func benchIDs(n int) []string {
	t0 := time.UnixMilli(1_700_000_000_123)
	ids := make([]string, n)
	for i := range ids {
		ids[i] = IPEndpointID(fmt.Sprintf("10.%d.%d.%d", i/65536, i/256%256, i%256), 8080, t0.Add(time.Duration(i)*time.Millisecond))
	}
	// reverse order so HashEndpoints really sorts
	for i, j := 0, len(ids)-1; i < j; i, j = i+1, j-1 {
		ids[i], ids[j] = ids[j], ids[i]
	}
	return ids
}

// BenchmarkCompute is the per-reconcile checkpoint cost: endpoint hash + spec JSON hash.
// It reports the cost relative to one bare SHA-256 of the same joined identifiers measured in the
// same run (x-sha256), so the figure does not depend on the machine.
func BenchmarkCompute(b *testing.B) {
	spec := benchSpec()
	for _, n := range []int{3, 30, 300} {
		ids := benchIDs(n)
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) {
			base := bareSHA(ids)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Compute(ids, spec); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/base, "x-sha256")
		})
	}
}

// BenchmarkHashEndpoints is the endpoint half alone (sort + join + SHA-256 + base64).
func BenchmarkHashEndpoints(b *testing.B) {
	for _, n := range []int{3, 300} {
		ids := benchIDs(n)
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = HashEndpoints(ids)
			}
		})
	}
}

// BenchmarkMatches is the early-exit comparison against stored annotations, per codec.
func BenchmarkMatches(b *testing.B) {
	cp, err := Compute(benchIDs(3), benchSpec())
	if err != nil {
		b.Fatal(err)
	}
	now := time.Unix(1_700_000_000, 0)
	for name, c := range map[string]Codec{"upstream": Upstream{}, "compact": Compact{}} {
		ann := apply(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}"}, c.Save(cp, now))
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !c.Matches(ann, cp) {
					b.Fatal("no match")
				}
			}
		})
	}
}

// bareSHA measures ns per bare SHA-256 of the comma-joined identifiers (the floor of HashEndpoints).
func bareSHA(ids []string) float64 {
	var joined []byte
	for i, id := range ids {
		if i > 0 {
			joined = append(joined, ',')
		}
		joined = append(joined, id...)
	}
	return nsPerOp(func() { _ = hashBytes(joined) })
}

// nsPerOp times f over at least 50 ms of calls (testing.Benchmark cannot nest inside a benchmark).
func nsPerOp(f func()) float64 {
	n := 0
	start := time.Now()
	for time.Since(start) < 50*time.Millisecond {
		for range 64 {
			f()
		}
		n += 64
	}
	return float64(time.Since(start).Nanoseconds()) / float64(n)
}

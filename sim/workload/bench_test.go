package workload_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/restartsim/restartsim/sim/workload"
)

// BenchmarkFleetSetup creates a fleet of 300 TGBs (RESTARTSIM_BENCH_TGBS) (3 pods each; instance, gate and networking mixes) and,
// in the same run with the same harness and concurrency, as many plain ConfigMaps as the fleet made
// Kubernetes writes; it reports both rates and their ratio (the goal: ≥ 0.6). On Linux it also reports
// the CPU seconds per write of the harness, kube-apiserver and etcd in each phase (from /proc),
// cpu-ratio, raw CPU per create ÷ fleet CPU per write: the ratio without other users' load in it,
// and server-ratio, the same for kube-apiserver and etcd alone: what a free harness would reach.
func BenchmarkFleetSetup(b *testing.B) {
	k8s := cluster(b).Client
	ctx := context.Background()
	tgbs := benchTGBs()
	for i := range b.N {
		b.StopTimer()
		// One namespace per 200 TGBs, the spread these benchmarks were first measured with.
		spec := workload.Spec{TGBs: tgbs, Namespaces: max(1, (tgbs+199)/200), PodsPerService: 3, InstanceShare: 0.1, ReadinessGateShare: 0.3, NetworkingShare: 0.3, Nodes: 10}
		n := fleetSeq.Add(1)
		spec.NamespacePrefix = fmt.Sprintf("b%02d", n)
		spec.NodeCIDR = fmt.Sprintf("10.0.%d.0/24", 200+n)
		f := workload.Plan(spec, seeded(uint64(i)))
		aws := newAWS(b)
		if err := workload.WarmUp(ctx, k8s); err != nil {
			b.Fatal(err)
		}
		cpu0 := readCPU()
		b.StartTimer()
		st, err := f.Create(ctx, workload.Options{Client: k8s, AWS: aws, Labels: map[string]string{"restartsim.io/run": spec.NamespacePrefix}})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		cpu1 := readCPU()
		raw, cleanup, err := workload.RawCreate(ctx, k8s, st.Writes, workload.DefaultConcurrency, spec.NamespacePrefix+"-raw", nil)
		rawCPU := readCPU().sub(cpu1)
		cleanup()
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(raw.Rate(), "raw-creates/s")
		b.ReportMetric(st.WriteRate(), "fleet-writes/s")
		b.ReportMetric(st.ObjectRate(), "fleet-objects/s")
		b.ReportMetric(st.WriteRate()/raw.Rate(), "write-ratio")
		b.ReportMetric(st.ObjectRate()/raw.Rate(), "object-ratio")
		b.ReportMetric(float64(st.Writes+st.AWSCalls)/st.Elapsed.Seconds()/raw.Rate(), "step-ratio")
		fleetCPU := cpu1.sub(cpu0)
		if fleetCPU.ok() && rawCPU.ok() {
			b.ReportMetric(rawCPU.total()/float64(raw.Objects)/(fleetCPU.total()/float64(st.Writes)), "cpu-ratio")
			// The ceiling of cpu-ratio for a harness that cost nothing: the API server's and etcd's
			// CPU per raw create ÷ per fleet write.
			b.ReportMetric(rawCPU.server()/float64(raw.Objects)/(fleetCPU.server()/float64(st.Writes)), "server-ratio")
			b.Logf("CPU ms per write: fleet %s, raw %s", fleetCPU.per(st.Writes), rawCPU.per(raw.Objects))
		}
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

// cpuTimes is CPU seconds (user + system) of this process and of its kube-apiserver and etcd children.
type cpuTimes struct{ harness, apiserver, etcd float64 }

func (c cpuTimes) sub(o cpuTimes) cpuTimes {
	return cpuTimes{c.harness - o.harness, c.apiserver - o.apiserver, c.etcd - o.etcd}
}
func (c cpuTimes) total() float64  { return c.harness + c.server() }
func (c cpuTimes) server() float64 { return c.apiserver + c.etcd }
func (c cpuTimes) ok() bool        { return c.harness > 0 && c.apiserver > 0 }
func (c cpuTimes) per(n int) string {
	ms := func(s float64) float64 { return 1000 * s / float64(n) }
	return fmt.Sprintf("%.2f (harness %.2f, kube-apiserver %.2f, etcd %.2f)", ms(c.total()), ms(c.harness), ms(c.apiserver), ms(c.etcd))
}

// readCPU reads /proc; it returns zeros where /proc is missing.
func readCPU() cpuTimes {
	var c cpuTimes
	self := os.Getpid()
	c.harness, _, _ = procStatFull(self)
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range paths {
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		secs, name, ppid := procStatFull(pid)
		if ppid != self {
			continue
		}
		switch name {
		case "kube-apiserver":
			c.apiserver += secs
		case "etcd":
			c.etcd += secs
		}
	}
	return c
}

// procStatFull returns utime+stime in seconds (assuming USER_HZ 100), the command name and the parent pid.
func procStatFull(pid int) (float64, string, int) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", 0
	}
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open || end+2 > len(s) {
		return 0, "", 0
	}
	f := strings.Fields(s[end+2:])
	if len(f) < 13 {
		return 0, "", 0
	}
	ppid, _ := strconv.Atoi(f[1])
	utime, _ := strconv.ParseFloat(f[11], 64)
	stime, _ := strconv.ParseFloat(f[12], 64)
	return (utime + stime) / 100, s[open+1 : end], ppid
}

package reports_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/restartsim/restartsim/results"
)

var update = flag.Bool("update", false, "regenerate testdata/ from the seeded generator")

const (
	goldenResults    = "testdata/results.json"
	goldenTimeseries = "testdata/timeseries.csv"
)

// strategyShape drives the seeded generator: how long a strategy is busy after the restart and
// how its meaningful changes are delayed.
type strategyShape struct {
	name       string
	config     map[string]string
	busy       int     // seconds of full-fleet reconciling after the restart
	ttfmr      float64 // seconds after the restart
	deferred   int     // TGBs parked in the deferred queue after the restart
	neverApply int     // changes never applied within the run
}

// generate builds a small, self-consistent run: the summaries are computed from the generated
// samples and changes, so the golden-data test can check figures against either.
func generate(seed uint64) (*results.Results, []results.Sample) {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	const (
		duration = 600
		restart  = 60
		tgbs     = 200
	)
	faultAt, faultEnd := 300.0, 330.0
	ops := []string{"DescribeTargetHealth", "DescribeInstances", "DescribeSecurityGroups", "RegisterTargets", "DeregisterTargets"}
	weights := []float64{6, 3, 2, 1, 0.5}
	shapes := []strategyShape{
		{name: "no-checkpoint", config: map[string]string{"checkpoint": "off"}, busy: 240, ttfmr: 181.5, neverApply: 1},
		{name: "checkpoint", config: map[string]string{"checkpoint": "on", "deferDelay": "30m"}, busy: 25, ttfmr: 3.25, deferred: 190},
	}
	r := &results.Results{
		SchemaVersion: results.SchemaVersion,
		Scenario: results.Scenario{Name: "golden", File: "scenarios/golden.yaml", Seed: int64(seed), TimeScale: 1,
			TGBs: tgbs, StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), WallSeconds: 612.5},
		Environment: results.Environment{RestartsimVersion: "v0.0.0-golden", KubernetesVersion: "v1.37.2", GoVersion: "go1.26.0",
			OS: "linux", Arch: "amd64", CPUs: 2, Cluster: "envtest", AWSEndpoint: "in-process", PeakRSSBytes: 512 << 20},
		Gate: []results.GateRule{
			{Metric: results.MetricTTFMR, Strategy: "checkpoint", RelativeTo: "no-checkpoint", Max: ptr(0.5), MaxRegression: ptr(0.5), Slack: 0.01},
			{Metric: results.MetricAWSCallsBeforeFirstMeaningful, Strategy: "checkpoint", MaxRegression: ptr(0.2), Slack: 20},
			{Metric: results.MetricK8sWrites, Strategy: "checkpoint", MaxRegression: ptr(0.2), Slack: 10},
		},
	}
	var samples []results.Sample
	for _, sh := range shapes {
		st := results.Strategy{Name: sh.name, Config: sh.config}
		st.Events = []results.Event{
			{AtSeconds: restart, Kind: "restart", Detail: "crash"},
			{AtSeconds: faultAt, EndSeconds: faultEnd, Kind: "awsFault", Detail: "ELBv2 Throttling"},
			{AtSeconds: restart + 2, Kind: "churn", Detail: "mixed × 5"},
			{AtSeconds: 450, Kind: "churn", Detail: "scale-up"},
		}
		before := map[string]int{}
		total := map[string]int{}
		throttledBefore, throttledTotal := 0, 0
		for sec := 0; sec < duration; sec++ {
			busy := sec >= restart && sec < restart+sh.busy
			level := 0.3 // background resyncs and churn
			if busy {
				level = 4
			}
			if float64(sec) >= faultAt && float64(sec) < faultEnd {
				level += 1
			}
			for i, op := range ops {
				n := int(math.Round(level * weights[i] * (0.6 + 0.8*rng.Float64())))
				if n == 0 {
					continue
				}
				th := 0
				if busy || (float64(sec) >= faultAt && float64(sec) < faultEnd) {
					th = int(math.Round(float64(n) * 0.25 * rng.Float64()))
				}
				samples = append(samples, results.Sample{Strategy: sh.name, Second: sec, Series: results.SeriesAWSCalls + ":" + op, Value: float64(n)})
				if th > 0 {
					samples = append(samples, results.Sample{Strategy: sh.name, Second: sec, Series: results.SeriesAWSThrottled + ":" + op, Value: float64(th)})
				}
				total[op] += n
				throttledTotal += th
				if sec >= restart && float64(sec) < restart+sh.ttfmr {
					before[op] += n
					throttledBefore += th
				}
			}
			depth := 0.0
			if busy {
				depth = math.Round(float64(tgbs) * (1 - float64(sec-restart)/float64(sh.busy)))
			}
			deferred := 0.0
			if sec >= restart+sh.busy/2 {
				deferred = float64(sh.deferred)
			}
			samples = append(samples,
				results.Sample{Strategy: sh.name, Second: sec, Series: results.SeriesQueueDepth, Value: depth},
				results.Sample{Strategy: sh.name, Second: sec, Series: results.SeriesDeferredDepth, Value: deferred})
			// The stopped instance until the restart, then the replacement's memory rising while it syncs.
			inst, rss, heap := "0", 80.0, 30.0
			if sec >= restart {
				grow := math.Min(1, float64(sec-restart)/float64(sh.busy))
				inst, rss, heap = "1", 50+60*grow, 20+40*grow
			}
			samples = append(samples,
				results.Sample{Strategy: sh.name, Second: sec, Series: results.SeriesMemoryRSS + ":" + inst, Value: rss * (1 << 20)},
				results.Sample{Strategy: sh.name, Second: sec, Series: results.SeriesMemoryHeap + ":" + inst, Value: heap * (1 << 20)})
		}
		var lat []float64
		for i := range 30 {
			at := math.Round(rng.Float64()*500*10) / 10
			c := results.Change{ID: fmt.Sprintf("change-%02d", i), Kind: []string{"scale-up", "scale-down", "rotate-ip"}[i%3],
				TGB: fmt.Sprintf("fleet/tgb-%d", i%10), AtSeconds: at}
			if i >= 30-sh.neverApply {
				st.Changes = append(st.Changes, c)
				continue
			}
			from := math.Max(at, restart)
			l := 0.5 + 2*rng.Float64()
			if at < restart+float64(sh.busy) {
				l += (restart + float64(sh.busy) - from) * rng.Float64()
			}
			l = math.Round(l*100) / 100
			applied := from + l
			c.AppliedSeconds, c.LatencySeconds = ptr(applied), ptr(l)
			lat = append(lat, l)
			st.Changes = append(st.Changes, c)
		}
		sort.Float64s(lat)
		// The no-checkpoint arm stands for a controller that tells neither its Lease nor its cache sync.
		st.Restart = &results.RestartPhases{Mode: "crash", StoppedSeconds: restart, OriginSeconds: restart + 1, StartedSeconds: restart + 1.2,
			FirstAWSCallSeconds: ptr(restart + 1 + sh.ttfmr/2), FirstAWSCallService: "elbv2", FirstMeaningfulSeconds: ptr(restart + 1 + sh.ttfmr), BlindWindowEndSeconds: ptr(450.0)}
		if sh.deferred > 0 {
			st.Restart.LeaderElection, st.Restart.LeadingSeconds, st.Restart.CachesSyncedSeconds = true, ptr(restart+1.5), ptr(restart+2.0)
			st.Config["binary"], st.Config["args"] = "bin/controller", "--leader-elect"
		}
		var blind []float64
		for _, c := range st.Changes {
			if results.CountsForBlindTime(st.Restart.StoppedSeconds, st.Restart.BlindWindowEndSeconds, c.AtSeconds, c.AppliedSeconds) {
				st.Summary.BlindTimeChanges++
				if c.AppliedSeconds != nil {
					blind = append(blind, math.Round((*c.AppliedSeconds-math.Max(c.AtSeconds, st.Restart.OriginSeconds))*1000)/1000)
				}
			}
		}
		sort.Float64s(blind)
		st.Summary = results.Summary{
			BlindTime:                      quantiles(blind),
			BlindTimeChanges:               st.Summary.BlindTimeChanges,
			TTFMRSeconds:                   ptr(sh.ttfmr),
			ChangeLatency:                  quantiles(lat),
			SteadyStateSeconds:             ptr(float64(sh.busy) + 12),
			AWSCallsBeforeFirstMeaningful:  before,
			ThrottledBeforeFirstMeaningful: throttledBefore,
			AWSCalls:                       total,
			Throttled:                      throttledTotal,
			K8sWrites:                      results.K8sWrites{CheckpointPatches: 2 * sh.deferred, PodStatusPatches: 40, StatusUpdates: tgbs / 10, Other: 3},
			Objects:                        results.Objects{TGBs: tgbs, Services: tgbs, EndpointSlices: tgbs, Pods: 3 * tgbs, Nodes: 10, TargetGroups: tgbs},
		}
		st.Invariants = results.Invariants{Passed: sh.neverApply == 0}
		if sh.neverApply > 0 {
			st.Invariants.Missing = 1
			st.Invariants.Violations = []results.Violation{{TGB: "fleet/tgb-9", Kind: "missing-target", Detail: "10.0.3.7:8080 not registered"}}
		}
		st.Thresholds = []results.ThresholdResult{{Metric: results.MetricTTFMR, Limit: 60, Value: sh.ttfmr, Passed: sh.ttfmr <= 60}}
		r.Strategies = append(r.Strategies, st)
	}
	for _, n := range []int{100, 300, 1000, 3000} {
		f := float64(n)
		r.Sweep = append(r.Sweep, results.SweepPoint{TGBs: n, TTFMRByStr: map[string]float64{
			"no-checkpoint": math.Round(0.9*f*(0.9+0.2*rng.Float64())*10) / 10,
			"checkpoint":    math.Round((2+0.002*f)*(0.9+0.2*rng.Float64())*100) / 100,
		}})
	}
	return r, samples
}

func quantiles(sorted []float64) results.Quantiles {
	if len(sorted) == 0 {
		return results.Quantiles{}
	}
	q := func(p float64) float64 { return sorted[int(math.Ceil(p*float64(len(sorted))))-1] }
	return results.Quantiles{Count: len(sorted), P50: q(0.5), P95: q(0.95), P99: q(0.99), Max: sorted[len(sorted)-1]}
}

func ptr[T any](v T) *T { return &v }

// loadGolden reads the committed inputs.
func loadGolden(t *testing.T) (*results.Results, []results.Sample) {
	t.Helper()
	r, err := results.Load(goldenResults)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(goldenTimeseries)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ts, err := results.ReadCSV(f)
	if err != nil {
		t.Fatal(err)
	}
	return r, ts
}

// TestGoldenInputsUpToDate keeps testdata/ in step with the generator; run with -update to
// regenerate after changing it.
func TestGoldenInputsUpToDate(t *testing.T) {
	r, ts := generate(42)
	dir := t.TempDir()
	if err := r.Save(filepath.Join(dir, "results.json")); err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	if err := results.WriteCSV(&csv, ts); err != nil {
		t.Fatal(err)
	}
	wantJSON, err := os.ReadFile(filepath.Join(dir, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(goldenResults, wantJSON, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenTimeseries, csv.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for path, want := range map[string][]byte{goldenResults: wantJSON, goldenTimeseries: csv.Bytes()} {
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./reports -run TestGoldenInputsUpToDate -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: %s", path, firstDiff(string(got), string(want)))
		}
	}
}

func firstDiff(got, want string) string {
	gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(gl) && i < len(wl); i++ {
		if gl[i] != wl[i] {
			return fmt.Sprintf("line %d: got %q, want %q (rerun with -update)", i+1, gl[i], wl[i])
		}
	}
	return "lengths differ (rerun with -update)"
}

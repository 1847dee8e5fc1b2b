package measure

import (
	"testing"

	"github.com/restartsim/restartsim/results"
)

func f64(v float64) *float64 { return &v }

// A replacement started after the stop: its peak is attributed to the restart phase it fell in,
// readings of the stopped instance never count, and the metrics carry the replacement's peaks.
func TestMemoryPeakAttributedToRestartPhase(t *testing.T) {
	const mib = 1 << 20
	in := &Input{End: 60,
		Restarts: []Restart{{Stopped: 10, Started: 12, At: 20, LeaderElection: true, Leading: f64(20),
			AtStop: []results.InstanceAtStop{{Replica: 0, Role: results.RoleLeader}}}},
		CachesSynced: []float64{-30, 25},
		Memory: &Memory{Interval: 0.1, Takeover: new(int), TakeoverStarted: 12, Readings: []MemoryReading{
			{Instance: 0, At: -5, RSS: 900 * mib, HeapInuse: f64(800 * mib)}, // the old leader: larger, never counted
			{Instance: 0, At: 9, RSS: 100 * mib, HeapInuse: f64(50 * mib)},
			{Instance: 1, At: 13, RSS: 30 * mib, HeapInuse: f64(10 * mib)},
			{Instance: 1, At: 21, RSS: 80 * mib, HeapInuse: f64(70 * mib)}, // heap peaks syncing caches
			{Instance: 1, At: 26, RSS: 95 * mib, HeapInuse: f64(40 * mib)}, // RSS peaks after the sync
			{Instance: 1, At: 59, RSS: 60 * mib, HWM: 96 * mib, HeapInuse: f64(20 * mib)},
		}}}
	*in.Memory.Takeover = 1
	out := Run(in)
	m := out.Summary.Memory
	if m == nil || m.Restart == nil {
		t.Fatalf("no restart memory: %+v", m)
	}
	r := m.Restart
	if r.Instance != 1 || r.FromSeconds != 12 || r.PeakRSSBytes != 95*mib || r.PeakRSSSeconds != 26 || r.PeakRSSPhase != results.PhaseAfterCacheSync {
		t.Errorf("RSS peak = instance %d from %v: %d at %v (%s), want instance 1 from 12: 95 MiB at 26 (%s)",
			r.Instance, r.FromSeconds, r.PeakRSSBytes/mib, r.PeakRSSSeconds, r.PeakRSSPhase, results.PhaseAfterCacheSync)
	}
	if r.PeakHeapInuseBytes == nil || *r.PeakHeapInuseBytes != 70*mib || *r.PeakHeapSeconds != 21 || r.PeakHeapPhase != results.PhaseSyncingCaches {
		t.Errorf("heap peak = %v at %v (%s), want 70 MiB at 21 (%s)", r.PeakHeapInuseBytes, r.PeakHeapSeconds, r.PeakHeapPhase, results.PhaseSyncingCaches)
	}
	if r.EndRSSBytes != 60*mib || r.HighWaterMarkBytes != 96*mib || *r.EndHeapInuseBytes != 20*mib || r.BeforeRSSBytes != 0 {
		t.Errorf("end = %d RSS, %d heap, HWM %d, before %d", r.EndRSSBytes, *r.EndHeapInuseBytes, r.HighWaterMarkBytes, r.BeforeRSSBytes)
	}
	roles := map[int]string{}
	for _, im := range m.Instances {
		roles[im.Instance] = im.Role
	}
	if roles[0] != results.MemoryRoleStopped || roles[1] != results.MemoryRoleTakeover {
		t.Errorf("roles = %v", roles)
	}
	metrics := out.Summary.Metrics()
	if metrics[results.MetricRestartPeakRSS] != 95*mib || metrics[results.MetricRestartPeakHeap] != 70*mib {
		t.Errorf("metrics = %v", metrics)
	}
}

// In-process replicas share the harness's process: the window starts at the stop, the reading
// before it is the baseline, and a peak before the Lease is named so.
func TestMemorySharedProcessFromTheStop(t *testing.T) {
	in := &Input{End: 30,
		Restarts: []Restart{{Stopped: 10, Started: 10, LeaderElection: true, Leading: f64(15)}},
		Memory: &Memory{Shared: true, Readings: []MemoryReading{
			{Instance: results.HarnessInstance, At: 9.9, RSS: 200},
			{Instance: results.HarnessInstance, At: 12, RSS: 260},
			{Instance: results.HarnessInstance, At: 29, RSS: 220},
		}}}
	out := Run(in)
	m := out.Summary.Memory
	if m.Process != results.MemoryProcessHarness || m.Instances[0].Role != results.MemoryRoleHarness {
		t.Fatalf("process %q, role %q", m.Process, m.Instances[0].Role)
	}
	r := m.Restart
	if r.BeforeRSSBytes != 200 || r.PeakRSSBytes != 260 || r.PeakRSSPhase != results.PhaseBeforeLease || r.PeakHeapInuseBytes != nil {
		t.Errorf("restart memory = %+v", r)
	}
	if _, ok := out.Summary.Metrics()[results.MetricRestartPeakHeap]; ok {
		t.Error("a peak heap metric without heap readings")
	}
}

// The figure's series keep each instance's largest reading per second of the measured phase only.
func TestMemorySeriesPeakPerSecond(t *testing.T) {
	got := memorySeries([]MemoryReading{
		{Instance: 1, At: -0.5, RSS: 999},
		{Instance: 1, At: 2.1, RSS: 10, HeapInuse: f64(5)},
		{Instance: 1, At: 2.6, RSS: 30},
		{Instance: 1, At: 2.9, RSS: 20},
		{Instance: 1, At: 8, RSS: 50},
	}, 7)
	want := []results.Sample{
		{Second: 2, Series: results.SeriesMemoryHeap + ":1", Value: 5},
		{Second: 2, Series: results.SeriesMemoryRSS + ":1", Value: 30},
	}
	if len(got) != len(want) {
		t.Fatalf("series = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("sample %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

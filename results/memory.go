package results

// Memory is the controller instances' memory from their start to the end of the measured phase. A
// restart is when a controller's memory peaks (every informer lists at once), and a controller that
// runs out of memory then restarts for ever.
type Memory struct {
	// Process is MemoryProcessController when each instance is a process of its own, or
	// MemoryProcessHarness when in-process replicas share the harness's process (with fakeaws and
	// the harness's watches): then only that process's memory is known, and a restart's share of
	// it is its rise over the value before the stop.
	Process string `json:"process"`
	// SampleIntervalSeconds is the wall time between two readings; an external process's resident
	// size is sampled 5 times as often and a reading keeps the largest sample.
	SampleIntervalSeconds float64          `json:"sampleIntervalSeconds"`
	Instances             []InstanceMemory `json:"instances"`
	// Restart is the memory of the instance that took over after the first restart (nil: no
	// restart, or no reading of it).
	Restart *RestartMemory `json:"restart,omitempty"`
}

// Memory.Process values.
const (
	MemoryProcessController = "controller"
	MemoryProcessHarness    = "harness"
)

// Roles of InstanceMemory.
const (
	MemoryRoleHarness  = "harness"  // the harness's process, shared by in-process replicas
	MemoryRoleTakeover = "takeover" // took over after the first restart
	MemoryRoleStopped  = "stopped"  // stopped by a restart
	MemoryRoleStandby  = "standby"  // neither
)

// HarnessInstance is InstanceMemory.Instance of the harness's process.
const HarnessInstance = -1

// InstanceMemory is one instance's memory over its readings, in scenario seconds.
type InstanceMemory struct {
	// Instance is the replica number, or HarnessInstance.
	Instance int    `json:"instance"`
	Role     string `json:"role"`
	// FirstSeconds and LastSeconds are the first and last readings (negative: in the warm-up).
	FirstSeconds float64 `json:"firstSeconds"`
	LastSeconds  float64 `json:"lastSeconds"`
	// PeakRSSBytes is the largest resident size read, at PeakRSSSeconds; LastRSSBytes the last.
	PeakRSSBytes   int64   `json:"peakRSSBytes"`
	PeakRSSSeconds float64 `json:"peakRSSSeconds"`
	LastRSSBytes   int64   `json:"lastRSSBytes"`
	// HighWaterMarkBytes is the kernel's high-water mark (VmHWM) at the last reading: a cross-check
	// of PeakRSSBytes that no sampling interval can miss (0: unknown).
	HighWaterMarkBytes int64 `json:"highWaterMarkBytes,omitempty"`
	// The Go heap in use (go_memstats_heap_inuse_bytes) and allocated (..._heap_alloc_bytes); nil
	// when the instance does not expose them.
	PeakHeapInuseBytes   *int64   `json:"peakHeapInuseBytes,omitempty"`
	PeakHeapInuseSeconds *float64 `json:"peakHeapInuseSeconds,omitempty"`
	LastHeapInuseBytes   *int64   `json:"lastHeapInuseBytes,omitempty"`
	PeakHeapAllocBytes   *int64   `json:"peakHeapAllocBytes,omitempty"`
}

// Phases of a restart that a memory peak is attributed to.
const (
	PhaseBeforeLease     = "before-lease"   // started, waiting for the Lease
	PhaseSyncingCaches   = "syncing-caches" // leading (or started, without leader election), caches not yet synced
	PhaseAfterCacheSync  = "after-caches-synced"
	PhaseUnknownSyncTime = "after-start" // the controller does not tell when its caches synced
)

// RestartMemory is the memory of the instance that took over after the first restart, from its
// start (a standby's, or the shared harness process's, from the stop) to the end of the measured
// phase: its peak, when it came relative to the restart's phases, and the value at the end.
type RestartMemory struct {
	Instance int `json:"instance"`
	// FromSeconds starts the window.
	FromSeconds float64 `json:"fromSeconds"`
	// BeforeRSSBytes and BeforeHeapInuseBytes are the last readings before the window (a standby's
	// or the harness process's; zero or nil for a new process).
	BeforeRSSBytes       int64  `json:"beforeRSSBytes,omitempty"`
	BeforeHeapInuseBytes *int64 `json:"beforeHeapInuseBytes,omitempty"`
	PeakRSSBytes         int64  `json:"peakRSSBytes"`
	// PeakRSSSeconds is when, in scenario seconds; PeakRSSPhase the restart phase it fell in.
	PeakRSSSeconds float64 `json:"peakRSSSeconds"`
	PeakRSSPhase   string  `json:"peakRSSPhase"`
	// PeakHeapInuseBytes, PeakHeapSeconds, PeakHeapPhase: the same for the heap in use (nil and
	// empty without heap metrics).
	PeakHeapInuseBytes *int64   `json:"peakHeapInuseBytes,omitempty"`
	PeakHeapSeconds    *float64 `json:"peakHeapSeconds,omitempty"`
	PeakHeapPhase      string   `json:"peakHeapPhase,omitempty"`
	// EndRSSBytes and EndHeapInuseBytes are the last readings, at the end of the measured phase:
	// the steady value once the timeline waited for the steady state.
	EndRSSBytes       int64  `json:"endRSSBytes"`
	EndHeapInuseBytes *int64 `json:"endHeapInuseBytes,omitempty"`
	// HighWaterMarkBytes is the instance's VmHWM at the end (0: unknown). For a new process it
	// bounds PeakRSSBytes from above; for the harness it covers the whole run.
	HighWaterMarkBytes int64 `json:"highWaterMarkBytes,omitempty"`
}

// addMetrics adds the restart's memory figures to m.
func (m *Memory) addMetrics(out map[string]float64) {
	if m == nil || m.Restart == nil {
		return
	}
	out[MetricRestartPeakRSS] = float64(m.Restart.PeakRSSBytes)
	if h := m.Restart.PeakHeapInuseBytes; h != nil {
		out[MetricRestartPeakHeap] = float64(*h)
	}
}

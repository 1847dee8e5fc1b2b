package results

// Machine is the state of the machine during one run's measured phase: how loaded it was and how
// late the harness got to run. A loaded machine stretches every latency of the run, so a slow run
// on a saturated machine says little about the controller.
type Machine struct {
	// CPUs is the number of logical CPUs the kernel reports.
	CPUs int `json:"cpus"`
	// Load1Start, Load1End and Load1Max are the kernel's 1-minute load average (/proc/loadavg) at the
	// start and end of the measured phase, and the largest of the samples taken once a second
	// between them (a 1-minute average lags: a burst shows in it for a minute).
	Load1Start float64 `json:"load1Start"`
	Load1End   float64 `json:"load1End"`
	Load1Max   float64 `json:"load1Max"`
	// StealFraction and IOWaitFraction are the shares of all CPUs' time over the measured phase that
	// the hypervisor gave to other guests (steal) and that idled waiting for I/O (/proc/stat deltas).
	StealFraction  float64 `json:"stealFraction"`
	IOWaitFraction float64 `json:"iowaitFraction"`
	// OtherCPUFraction is the share of all CPUs' time over the measured phase that processes
	// outside the run used: busy CPU time less that of the harness and its descendants (API
	// server, etcd, controllers).
	OtherCPUFraction float64 `json:"otherCPUFraction"`
	// BusyFraction is the share of all CPUs' time over the measured phase that anything ran: the
	// run, runs beside it and other processes.
	BusyFraction float64 `json:"busyFraction,omitempty"`
	// Parallel is how many runs of the harness ran side by side (1: this one alone), and
	// RunCPUSeconds the CPU time (user + system) this run's own processes (API server, etcd,
	// controllers) got over WallSeconds, the measured phase's wall time: the CPU it got.
	Parallel      int     `json:"parallel,omitempty"`
	RunCPUSeconds float64 `json:"runCPUSeconds,omitempty"`
	WallSeconds   float64 `json:"wallSeconds,omitempty"`
	// SchedDelay is how late a harness goroutine that sleeps ProbeIntervalMillis woke up, in
	// milliseconds: the wait of a runnable harness for a CPU (and for the Go scheduler).
	SchedDelay          DelayQuantiles `json:"schedDelay"`
	ProbeIntervalMillis float64        `json:"probeIntervalMillis"`
	// Saturated tells the run's machine was saturated by SaturationRule; Reason says which limit
	// was reached ("" when not saturated).
	Saturated bool   `json:"saturated"`
	Reason    string `json:"reason,omitempty"`
	// Error says which figures could not be read (they are zero then).
	Error string `json:"error,omitempty"`
}

// DelayQuantiles summarises the scheduling-delay probe, in milliseconds.
type DelayQuantiles struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
}

// Saturation limits: a run is saturated when other processes took SaturationOtherCPUFraction of
// the CPUs' time, the probe's p99 delay reached SaturationDelayP99Millis, or steal took
// SaturationStealFraction of the CPU time.
const (
	SaturationOtherCPUFraction = 0.25
	SaturationDelayP99Millis   = 10.0
	SaturationStealFraction    = 0.1
	// SaturationRule says the rule in words, for reports.
	SaturationRule = "processes outside the run used ≥ 25 % of the CPUs, or the harness's scheduling-delay p99 ≥ 10 ms, or CPU steal ≥ 10 %"
)

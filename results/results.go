package results

import "time"

// SchemaVersion identifies the layout of results.json. Bump it on incompatible changes.
const SchemaVersion = "restartsim.results/v1"

// Results is the content of results.json: one scenario run, one entry per strategy.
type Results struct {
	SchemaVersion string      `json:"schemaVersion"`
	Scenario      Scenario    `json:"scenario"`
	Environment   Environment `json:"environment"`
	Strategies    []Strategy  `json:"strategies"`
	// Gate holds the scenario's gate rules, so the gate needs only results.json and a baseline.
	Gate []GateRule `json:"gate,omitempty"`
	// AB describes an A/B comparison of two builds (strategies AB.Baseline and AB.Candidate, each
	// with one summary per run in Runs), judged by `restartsim gate`.
	AB *AB `json:"ab,omitempty"`
	// Sweep holds one point per fleet size when the scenario sweeps sizes (scale runs).
	Sweep []SweepPoint `json:"sweep,omitempty"`
}

// Scenario describes what was run.
type Scenario struct {
	Name      string    `json:"name"`
	File      string    `json:"file"`
	Seed      int64     `json:"seed"`
	TimeScale float64   `json:"timeScale"`
	TGBs      int       `json:"targetGroupBindings"`
	StartedAt time.Time `json:"startedAt"`
	// WallSeconds is the wall-clock duration of the whole run, setup included.
	WallSeconds float64 `json:"wallSeconds"`
	// FleetSetupSeconds is the wall time spent creating fleets: once per seed when the strategies start
	// from a snapshot of it, once per strategy run otherwise.
	FleetSetupSeconds float64 `json:"fleetSetupSeconds,omitempty"`
	// Repeats is how many times each strategy ran; summaries are medians across repeats.
	Repeats int `json:"repeats,omitempty"`
}

// Environment records where the run happened, so figures can be compared fairly.
type Environment struct {
	RestartsimVersion string `json:"restartsimVersion"`
	KubernetesVersion string `json:"kubernetesVersion"`
	GoVersion         string `json:"goVersion"`
	OS                string `json:"os"`
	Arch              string `json:"arch"`
	CPUs              int    `json:"cpus"`
	Cluster           string `json:"cluster"` // "envtest" or "kubeconfig"
	// EndpointSlices on a kubeconfig cluster: "cluster" when its EndpointSlice controller wrote the
	// slices, "simulated" when the harness did (always the harness on envtest).
	EndpointSlices string `json:"endpointSlices,omitempty"`
	AWSEndpoint    string `json:"awsEndpoint"`
	AWSProfile     string `json:"awsProfile"`
	// PeakRSSBytes is the peak resident memory of the whole process tree (harness, apiserver, etcd).
	PeakRSSBytes int64 `json:"peakRSSBytes,omitempty"`
	// PeakRSSByProcess splits PeakRSSBytes by process name (at the sample of the peak).
	PeakRSSByProcess map[string]int64 `json:"peakRSSByProcess,omitempty"`
}

// Strategy is one controller configuration's run on the shared fleet and timeline.
type Strategy struct {
	Name       string            `json:"name"`
	Config     map[string]string `json:"config"`
	Summary    Summary           `json:"summary"`
	Runs       []Summary         `json:"runs,omitempty"` // per repeat, when Repeats > 1
	Changes    []Change          `json:"changes"`
	Events     []Event           `json:"events"`
	Invariants Invariants        `json:"invariants"`
	Thresholds []ThresholdResult `json:"thresholds"`
	// Restart is the first restart's steps, the blind-time breakdown (nil without a restart), and
	// Restarts every restart's, the first included, in order.
	Restart  *RestartPhases  `json:"restart,omitempty"`
	Restarts []RestartPhases `json:"restarts,omitempty"`
	// Unapplied lists the changes AWS did not show when the run ended (of the run Changes come
	// from); a finding about the controller unless the scenario expects them (see UnappliedChange).
	Unapplied []UnappliedChange `json:"unapplied,omitempty"`
	// CallLogOrigin is fakeaws's clock when the measured phase began: a call in the strategy's
	// aws-calls.jsonl happened at its time minus this, in scenario seconds (nil: no call log).
	CallLogOrigin *time.Time `json:"callLogOrigin,omitempty"`
	// Forecasts are the restart at the larger fleets the scenario's predict section asked for, from
	// the restart-queue model fitted on this run.
	Forecasts []Forecast `json:"forecasts,omitempty"`
}

// Forecast is the restart-queue model's restart at one fleet size. Refused, when set, says why the
// model did not explain the run, and nothing else is.
type Forecast struct {
	Size               int      `json:"size"`
	BlindP50           *Spread  `json:"blindP50Seconds,omitempty"`
	BlindP95           *Spread  `json:"blindP95Seconds,omitempty"`
	TTFMR              *Spread  `json:"ttfmrSeconds,omitempty"`
	SteadyStateSeconds *float64 `json:"steadyStateSeconds,omitempty"`
	Refused            string   `json:"refused,omitempty"`
}

// Spread is a forecast figure over random queue orders: the median and the central 95 %.
type Spread struct {
	Median float64 `json:"median"`
	Low    float64 `json:"low"`
	High   float64 `json:"high"`
}

// RestartPhases is when each step of a restart happened, in scenario seconds. A nil step is one
// the controller does not expose (or that never happened within the run).
type RestartPhases struct {
	Mode string `json:"mode"`
	// StoppedSeconds is when the old instance stopped; OriginSeconds adds the scenario's downtime
	// (the platform's time to replace a process), where TTFMR and blind time start.
	StoppedSeconds float64 `json:"stoppedSeconds"`
	OriginSeconds  float64 `json:"originSeconds"`
	// StartedSeconds is when the replacement process was started.
	StartedSeconds float64 `json:"startedSeconds"`
	// LeaderElection tells the replacement had to acquire a Lease; LeadingSeconds is when it did.
	LeaderElection bool     `json:"leaderElection"`
	LeadingSeconds *float64 `json:"leadingSeconds,omitempty"`
	// LeaseRequestedSeconds is the replacement's first request for the Lease (from the audit log):
	// client-go counts a held Lease's expiry from then.
	LeaseRequestedSeconds *float64 `json:"leaseRequestedSeconds,omitempty"`
	// CachesSyncedSeconds is when its informer caches synced (its log says so).
	CachesSyncedSeconds *float64 `json:"cachesSyncedSeconds,omitempty"`
	// FirstAWSCallSeconds is its first call to AWS, of any service (ELBv2 for the load balancer
	// controller, Route53 for external-dns), FirstAWSCallService that call's service: the first
	// sign its work reached AWS. Results written before it was named so hold the first ELBv2 call
	// as firstReconcileSeconds, read into it.
	FirstAWSCallSeconds *float64 `json:"firstAWSCallSeconds,omitempty"`
	FirstAWSCallService string   `json:"firstAWSCallService,omitempty"`
	// FirstMeaningfulSeconds is the first AWS mutation that applied a pending change (TTFMR's end).
	FirstMeaningfulSeconds *float64 `json:"firstMeaningfulSeconds,omitempty"`
	// BlindWindowEndSeconds ends the span of the restart's changes (see CountsForBlindTime).
	BlindWindowEndSeconds *float64 `json:"blindWindowEndSeconds,omitempty"`
	// AtStop is every controller process running just before the stop (external controllers
	// only): what the stopped leader and the standbys cost until then.
	AtStop []InstanceAtStop `json:"atStop,omitempty"`
}

// Roles of InstanceAtStop.
const (
	RoleLeader  = "leader"
	RoleStandby = "standby"
)

// InstanceAtStop is one controller process's cost until a restart's stop.
type InstanceAtStop struct {
	Replica int `json:"replica"`
	// Role is "leader" for the instance the restart stopped, else "standby".
	Role string `json:"role"`
	// RSSBytes is its resident memory at the stop; CPUSeconds its CPU time (user + system) from its
	// start, over UpSeconds of wall time.
	RSSBytes   int64   `json:"rssBytes"`
	CPUSeconds float64 `json:"cpuSeconds"`
	UpSeconds  float64 `json:"upSeconds"`
}

// Quantiles summarises a set of durations in seconds. Some of them may be censored: a change never
// applied within the run counts as its wait until the run's end, a lower bound of its latency. A
// percentile that such a bound reaches (see CensoredQuantiles) is itself only a lower bound, and
// its flag says so: the true value is at least the figure.
type Quantiles struct {
	Count int     `json:"count"`
	P50   float64 `json:"p50"`
	P95   float64 `json:"p95"`
	P99   float64 `json:"p99"`
	Max   float64 `json:"max"`
	// Censored is how many of the Count values are lower bounds (changes never applied).
	Censored    int  `json:"censored,omitempty"`
	P50Censored bool `json:"p50Censored,omitempty"`
	P95Censored bool `json:"p95Censored,omitempty"`
	P99Censored bool `json:"p99Censored,omitempty"`
	MaxCensored bool `json:"maxCensored,omitempty"`
}

// Summary holds one strategy's key figures. All times are scenario seconds; a nil pointer
// means the event never happened within the run.
type Summary struct {
	// TTFMRSeconds: from the restart (the old instance stopping, plus the scenario's downtime; the
	// new one's start-up is part of it) to the first AWS mutation that applies a pending meaningful
	// change.
	TTFMRSeconds *float64 `json:"ttfmrSeconds"`
	// BlindTime: the latency of the restart's changes (see CountsForBlindTime), each timed from
	// max(change, origin) until AWS reflects it. Unlike TTFMR (the first of them) it does not
	// depend on where the changed objects sit in the restart's work queue.
	BlindTime Quantiles `json:"blindTime"`
	// BlindTimeChanges counts the restart's changes, those never applied included.
	BlindTimeChanges int `json:"blindTimeChanges,omitempty"`
	// UnappliedChanges counts the changes still not applied when the run ended (Strategy.Unapplied
	// lists them); 0 in results written before it was recorded.
	UnappliedChanges int `json:"unappliedChanges,omitempty"`
	// ChangeLatency: per meaningful change, from the change (or restart) until AWS reflects it.
	ChangeLatency Quantiles `json:"changeLatency"`
	// SteadyStateSeconds: from the restart (as for TTFMR) until every invariant holds.
	SteadyStateSeconds *float64 `json:"steadyStateSeconds"`

	AWSCallsBeforeFirstMeaningful  map[string]int `json:"awsCallsBeforeFirstMeaningful"`
	ThrottledBeforeFirstMeaningful int            `json:"throttledBeforeFirstMeaningful"`
	AWSCalls                       map[string]int `json:"awsCalls"`
	Throttled                      int            `json:"throttled"`

	K8sWrites K8sWrites `json:"k8sWrites"`

	// ResumeReconciles counts the resume fast path's reconciles (strategies with resume only).
	ResumeReconciles *int `json:"resumeReconciles,omitempty"`

	// Costs of the first restart's blind time, which vary less with machine load than its length.
	// ControllerCPUSecondsBeforeFirstMeaningful is the replacement process's CPU time (user +
	// system, real seconds) from its start to the first meaningful mutation; nil for in-process
	// controllers, whose CPU cannot be told apart from the harness's.
	ControllerCPUSecondsBeforeFirstMeaningful *float64 `json:"controllerCPUSecondsBeforeFirstMeaningful,omitempty"`
	// APIRequestsBeforeFirstMeaningful counts the controller identity's Kubernetes API requests
	// (reads and writes, from the audit log) from the replacement's start to the first meaningful
	// mutation; nil without an audit log.
	APIRequestsBeforeFirstMeaningful *int `json:"apiRequestsBeforeFirstMeaningful,omitempty"`
	// CacheSyncSeconds is from when the instance that took over could lead (its start, or the
	// Lease it waited for) until its informer caches synced (scenario seconds); nil when the
	// controller does not tell.
	CacheSyncSeconds *float64 `json:"cacheSyncSeconds,omitempty"`
	// Lease splits the first restart's start-up at the Lease (nil: the replacement waited for none).
	Lease *LeaseSplit `json:"lease,omitempty"`

	// APILoad is the controller identity's reads and Lease writes in the measured phase, every
	// instance's together (nil without an audit log).
	APILoad *APILoad `json:"apiLoad,omitempty"`
	// StandbyRSSBytes is the largest resident memory of an instance standing by at the first
	// restart's stop (nil: no standby, or in-process replicas, which share the harness's process).
	StandbyRSSBytes *int64 `json:"standbyRSSBytes,omitempty"`

	ReadinessGateFlip Quantiles `json:"readinessGateFlip"`
	DriftRepair       Quantiles `json:"driftRepair"`
	Objects           Objects   `json:"objects"`

	// Work is the first restart's reconcile work, from the controller's own metrics (nil: no
	// restart, or no metrics).
	Work *RestartWork `json:"work,omitempty"`
	// Memory is the controller instances' memory (nil: not read).
	Memory *Memory `json:"memory,omitempty"`
	// Machine is the machine's load and the harness's scheduling delay during the measured phase.
	Machine *Machine `json:"machine,omitempty"`
}

// APILoad counts requests that cost the API server while a controller runs: a LIST per informer
// start, a long-lived WATCH per informer (re-opened when the server ends it), GETs, and the Lease
// writes of leader election (renewals and takeovers). Watches are timed by when they were opened.
type APILoad struct {
	Lists       int `json:"lists"`
	Watches     int `json:"watches"`
	Gets        int `json:"gets"`
	LeaseWrites int `json:"leaseWrites"`
}

// K8sWrites counts writes by the controller to the API server during the measured phase.
type K8sWrites struct {
	CheckpointPatches int `json:"checkpointPatches"`
	PodStatusPatches  int `json:"podStatusPatches"`
	StatusUpdates     int `json:"statusUpdates"`
	Other             int `json:"other"`
}

// Total is the sum of all writes.
func (w K8sWrites) Total() int {
	return w.CheckpointPatches + w.PodStatusPatches + w.StatusUpdates + w.Other
}

// Objects counts what the fleet held.
type Objects struct {
	TGBs           int `json:"targetGroupBindings"`
	Services       int `json:"services"`
	EndpointSlices int `json:"endpointSlices"`
	Pods           int `json:"pods"`
	Nodes          int `json:"nodes"`
	TargetGroups   int `json:"targetGroups"`
	// Groups are the scenario's object groups (fleet.objects) by name, with their object counts.
	Groups map[string]int `json:"groups,omitempty"`
}

// CountsForBlindTime reports whether a change made at `at` (applied at applied, nil: never) is
// one of a restart's changes: pending when the old instance stopped, or made from the stop until
// windowEnd (nil: the end of the run), the start of the second churn step after the stop (the
// steps made before the replacement started counting as one). So the restart's changes are those
// made while it is under way and by the first churn step that follows it, however long the new
// instance took to lead.
func CountsForBlindTime(stopped float64, windowEnd *float64, at float64, applied *float64) bool {
	if at < stopped {
		return applied == nil || *applied > stopped
	}
	// Event times are rounded to milliseconds: the second step's changes come after its event.
	return windowEnd == nil || at < *windowEnd-0.001
}

// Change is one meaningful change and when AWS reflected it.
type Change struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // e.g. "scale-up", "scale-down", "rotate-ip", "add-tgb", "remove-tgb", "drift"
	TGB  string `json:"tgb"`  // namespace/name
	// Ingress is the Ingress (namespace/name) of an Ingress-side change; TGB is then empty.
	Ingress string `json:"ingress,omitempty"`
	// Object is the object (group/namespace/name) of a change to a scenario's object group; TGB
	// is then empty.
	Object string `json:"object,omitempty"`
	// AtSeconds is when the change was made (scenario seconds since the measured phase began).
	AtSeconds float64 `json:"atSeconds"`
	// AppliedSeconds is when fakeaws first reflected it; nil if never.
	AppliedSeconds *float64 `json:"appliedSeconds"`
	// LatencySeconds is AppliedSeconds minus max(AtSeconds, the restart that preceded it).
	LatencySeconds *float64 `json:"latencySeconds"`
}

// Event marks a timeline action for plots: restarts, faults, churn.
type Event struct {
	AtSeconds  float64 `json:"atSeconds"`
	EndSeconds float64 `json:"endSeconds,omitempty"` // for windows such as outages
	Kind       string  `json:"kind"`                 // "restart", "awsFault", "churn", ...
	Detail     string  `json:"detail,omitempty"`
}

// Invariants is the end-of-run check of AWS state against the desired state.
type Invariants struct {
	Passed bool `json:"passed"`
	// Missing counts the bindings' missing or unhealthy targets and the object groups' objects
	// missing or not ready; Stale the bindings' targets AWS holds and should not.
	Missing int `json:"missingTargets"`
	Stale   int `json:"staleTargets"`
	// ObjectsFailing counts the object groups' objects whose invariant fails, and deleted objects
	// that still exist (results written before it was counted apart hold these in Stale).
	ObjectsFailing int `json:"objectsFailing,omitempty"`
	// Orphaned counts, by AWS kind (route53RecordSet, targetGroup, ...), the AWS resources deleted
	// objects left behind.
	Orphaned map[string]int `json:"orphaned,omitempty"`
	// OrphansExpected tells the scenario declared leftovers of the strategy (a threshold on
	// orphaned_resources): Orphaned is then judged by that threshold, not here, and the orphans are
	// not among Violations.
	OrphansExpected bool `json:"orphansExpected,omitempty"`
	// LeakedInstances counts the pending or running EC2 instances, launched during the run, that
	// no Node and no NodeClaim names (checked where instances join as Nodes).
	LeakedInstances int         `json:"leakedInstances,omitempty"`
	Violations      []Violation `json:"violations"`
}

// Violation names one TGB whose AWS state is wrong.
type Violation struct {
	TGB    string `json:"tgb"`
	Kind   string `json:"kind"` // "missing-target", "stale-target", "readiness-gate", "sg-rule", "stale-checkpoint", "object-orphan", ...
	Detail string `json:"detail"`
}

// ThresholdResult is one scenario threshold checked against a summary metric.
type ThresholdResult struct {
	Metric string  `json:"metric"`
	Limit  float64 `json:"limit"`
	Value  float64 `json:"value"`
	Passed bool    `json:"passed"`
}

// GateRule is a CI gate rule: written in the scenario's gate section, copied as is into results.json
// for `restartsim gate`.
type GateRule struct {
	// Metric is a summary metric, as for thresholds.
	Metric string `json:"metric"`
	// Strategy is whose metric is checked.
	Strategy string `json:"strategy"`
	// RelativeTo divides the metric by the same metric of this strategy in the same run, which
	// cancels the machine's speed (e.g. checkpoint's p95 over no-checkpoint's).
	RelativeTo string `json:"relativeTo,omitempty"`
	// Max is an absolute limit on the (possibly relative) value.
	Max *float64 `json:"max,omitempty"`
	// MaxRegression is the allowed increase over the baseline run, as a fraction (0.2 = +20 %).
	MaxRegression *float64 `json:"maxRegression,omitempty"`
	// Slack is an absolute allowance added to the regression limit, for counts near zero. Default 0.
	Slack float64 `json:"slack,omitempty"`
}

// SweepPoint is one fleet size of a scale sweep.
type SweepPoint struct {
	TGBs       int                `json:"targetGroupBindings"`
	TTFMRByStr map[string]float64 `json:"ttfmrSecondsByStrategy"`
	// PredictedTTFMRByStr is the restart-queue model's TTFMR at this size (the median over random
	// queue orders), fitted on the sweep's smallest size; a strategy the model could not explain
	// has none.
	PredictedTTFMRByStr map[string]float64 `json:"predictedTtfmrSecondsByStrategy,omitempty"`
}

// Strategy returns the strategy with the given name.
func (r *Results) Strategy(name string) (*Strategy, bool) {
	for i := range r.Strategies {
		if r.Strategies[i].Name == name {
			return &r.Strategies[i], true
		}
	}
	return nil, false
}

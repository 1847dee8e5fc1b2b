package results

import (
	"fmt"
	"slices"
)

// Bounds of valid results: every figure is finite, counts and durations are not negative, and
// nothing is larger than a run could have produced. A corrupted file is refused by them rather than
// drawn or judged: one huge time once kept the report's axis ticks from ever ending.
const (
	// MaxFileBytes bounds results.json and timeseries.csv: over a hundred times the largest run's.
	MaxFileBytes = 64 << 20
	// MaxSeconds bounds every time and duration in seconds, scenario or wall-clock: 30 days, four
	// times the longest delay a scenario's timeline may hold.
	MaxSeconds = 30 * 24 * 3600
	// MaxCount bounds every count (calls, writes, objects, changes).
	MaxCount = 1e12
	// maxValue bounds limits and effects, whose unit is the metric's (bytes included).
	maxValue = 1e15
	// MaxStrategies bounds the strategies of one run (an A/B comparison's two sides included).
	MaxStrategies = 100
	// MaxRuns bounds the runs of one strategy (a scenario's repeats, an A/B side's runs).
	MaxRuns = 1000
	// MaxNameBytes bounds names and the other labels a report draws (strategies, changes, events).
	MaxNameBytes = 256
	// maxDetailBytes bounds an event's detail, drawn beside its marker.
	maxDetailBytes = 1024
	// maxBytes bounds byte sizes (resident memory).
	maxBytes = 1 << 50
	// maxRestarts, maxSweepPoints and maxGateRules bound lists a scenario keeps short.
	maxRestarts    = 10000
	maxSweepPoints = 1000
	maxGateRules   = 1000
)

// maxProblems caps the problems one error lists.
const maxProblems = 10

// Validate checks that every figure of r is within the bounds above. Its error lists the
// problems, each at its JSON path (strategies[1].summary.blindTime.p95).
func (r *Results) Validate() error {
	c := &checker{}
	sc := r.Scenario
	c.required("scenario.name", sc.Name, "missing: results name the scenario that produced them")
	c.name("scenario.name", sc.Name)
	c.within("scenario.timeScale", sc.TimeScale, 0, 1e6)
	c.count("scenario.targetGroupBindings", sc.TGBs)
	c.seconds("scenario.wallSeconds", sc.WallSeconds)
	c.seconds("scenario.fleetSetupSeconds", sc.FleetSetupSeconds)
	c.within("scenario.repeats", float64(sc.Repeats), 0, MaxRuns)
	c.count("environment.cpus", r.Environment.CPUs)
	c.bytes("environment.peakRSSBytes", r.Environment.PeakRSSBytes)
	for name, b := range r.Environment.PeakRSSByProcess {
		c.bytes(fmt.Sprintf("environment.peakRSSByProcess[%q]", name), b)
	}
	switch n := len(r.Strategies); {
	case n == 0:
		c.addf("strategies", "empty: a run has at least one strategy")
	case n > MaxStrategies:
		c.addf("strategies", "%d strategies, more than %d", n, MaxStrategies)
		return c.err()
	}
	c.strategyNames(r.Strategies)
	for i := range r.Strategies {
		c.strategy(fmt.Sprintf("strategies[%d]", i), &r.Strategies[i])
	}
	c.length("gate", len(r.Gate), maxGateRules)
	for i, g := range r.Gate {
		p := fmt.Sprintf("gate[%d]", i)
		c.optValue(p+".max", g.Max)
		c.optValue(p+".maxRegression", g.MaxRegression)
		c.value(p+".slack", g.Slack)
	}
	if r.AB != nil {
		c.ab(r.AB)
	}
	if c.length("sweep", len(r.Sweep), maxSweepPoints) {
		for i, pt := range r.Sweep {
			p := fmt.Sprintf("sweep[%d]", i)
			c.count(p+".targetGroupBindings", pt.TGBs)
			for _, f := range []struct {
				field string
				byStr map[string]float64
			}{{"ttfmrSecondsByStrategy", pt.TTFMRByStr}, {"predictedTtfmrSecondsByStrategy", pt.PredictedTTFMRByStr}} {
				c.length(p+"."+f.field, len(f.byStr), MaxStrategies)
				for name, v := range f.byStr {
					c.name(p+"."+f.field, name)
					c.seconds(fmt.Sprintf("%s.%s[%q]", p, f.field, name), v)
				}
			}
		}
	}
	return c.err()
}

// strategyNames checks that every strategy has a name of its own: figures, tables, the gate and
// the A/B comparison find a strategy by name, so a second one of the same name would be hidden.
func (c *checker) strategyNames(ss []Strategy) {
	first := make(map[string]int, len(ss))
	for i, s := range ss {
		p := fmt.Sprintf("strategies[%d].name", i)
		if !c.required(p, s.Name, "missing: every strategy is named") {
			continue
		}
		if j, ok := first[s.Name]; ok {
			c.addf(p, "%q repeats strategies[%d]", trunc(s.Name), j)
			continue
		}
		first[s.Name] = i
	}
}

func (c *checker) strategy(p string, s *Strategy) {
	c.name(p+".name", s.Name)
	c.summary(p+".summary", &s.Summary)
	if c.length(p+".runs", len(s.Runs), MaxRuns) {
		for i := range s.Runs {
			c.summary(fmt.Sprintf("%s.runs[%d]", p, i), &s.Runs[i])
		}
	}
	for i, ch := range s.Changes {
		q := fmt.Sprintf("%s.changes[%d]", p, i)
		c.name(q+".id", ch.ID)
		c.name(q+".kind", ch.Kind)
		c.seconds(q+".atSeconds", ch.AtSeconds)
		c.optSeconds(q+".appliedSeconds", ch.AppliedSeconds)
		// A latency is a difference of two times: the only figure allowed below zero.
		if ch.LatencySeconds != nil {
			c.within(q+".latencySeconds", *ch.LatencySeconds, -MaxSeconds, MaxSeconds)
		}
	}
	for i, e := range s.Events {
		q := fmt.Sprintf("%s.events[%d]", p, i)
		c.seconds(q+".atSeconds", e.AtSeconds)
		c.seconds(q+".endSeconds", e.EndSeconds)
		c.name(q+".kind", e.Kind)
		if len(e.Detail) > maxDetailBytes {
			c.addf(q+".detail", "%d bytes, more than %d", len(e.Detail), maxDetailBytes)
		}
	}
	c.count(p+".invariants.missingTargets", s.Invariants.Missing)
	c.count(p+".invariants.staleTargets", s.Invariants.Stale)
	c.count(p+".invariants.objectsFailing", s.Invariants.ObjectsFailing)
	c.counts(p+".invariants.orphaned", s.Invariants.Orphaned)
	c.count(p+".invariants.leakedInstances", s.Invariants.LeakedInstances)
	for i, t := range s.Thresholds {
		q := fmt.Sprintf("%s.thresholds[%d]", p, i)
		c.value(q+".limit", t.Limit)
		c.value(q+".value", t.Value)
	}
	c.unapplied(p, s)
	c.forecasts(p, s.Forecasts)
	if s.Restart != nil {
		c.restart(p+".restart", s.Restart)
	}
	if c.length(p+".restarts", len(s.Restarts), maxRestarts) {
		for i := range s.Restarts {
			c.restart(fmt.Sprintf("%s.restarts[%d]", p, i), &s.Restarts[i])
		}
	}
}

func (c *checker) restart(p string, ph *RestartPhases) {
	c.seconds(p+".stoppedSeconds", ph.StoppedSeconds)
	c.seconds(p+".originSeconds", ph.OriginSeconds)
	c.seconds(p+".startedSeconds", ph.StartedSeconds)
	c.optSeconds(p+".leadingSeconds", ph.LeadingSeconds)
	c.optSeconds(p+".leaseRequestedSeconds", ph.LeaseRequestedSeconds)
	c.optSeconds(p+".cachesSyncedSeconds", ph.CachesSyncedSeconds)
	c.optSeconds(p+".firstAWSCallSeconds", ph.FirstAWSCallSeconds)
	c.name(p+".firstAWSCallService", ph.FirstAWSCallService)
	c.optSeconds(p+".firstMeaningfulSeconds", ph.FirstMeaningfulSeconds)
	c.optSeconds(p+".blindWindowEndSeconds", ph.BlindWindowEndSeconds)
	if c.length(p+".atStop", len(ph.AtStop), MaxRuns) {
		for i, in := range ph.AtStop {
			q := fmt.Sprintf("%s.atStop[%d]", p, i)
			c.count(q+".replica", in.Replica)
			c.bytes(q+".rssBytes", in.RSSBytes)
			c.seconds(q+".cpuSeconds", in.CPUSeconds)
			c.seconds(q+".upSeconds", in.UpSeconds)
		}
	}
}

func (c *checker) summary(p string, s *Summary) {
	c.optSeconds(p+".ttfmrSeconds", s.TTFMRSeconds)
	c.quantiles(p+".blindTime", s.BlindTime)
	c.count(p+".blindTimeChanges", s.BlindTimeChanges)
	c.count(p+".unappliedChanges", s.UnappliedChanges)
	c.quantiles(p+".changeLatency", s.ChangeLatency)
	c.optSeconds(p+".steadyStateSeconds", s.SteadyStateSeconds)
	c.counts(p+".awsCallsBeforeFirstMeaningful", s.AWSCallsBeforeFirstMeaningful)
	c.count(p+".throttledBeforeFirstMeaningful", s.ThrottledBeforeFirstMeaningful)
	c.counts(p+".awsCalls", s.AWSCalls)
	c.count(p+".throttled", s.Throttled)
	w := s.K8sWrites
	c.count(p+".k8sWrites.checkpointPatches", w.CheckpointPatches)
	c.count(p+".k8sWrites.podStatusPatches", w.PodStatusPatches)
	c.count(p+".k8sWrites.statusUpdates", w.StatusUpdates)
	c.count(p+".k8sWrites.other", w.Other)
	c.optCount(p+".resumeReconciles", s.ResumeReconciles)
	c.optSeconds(p+".controllerCPUSecondsBeforeFirstMeaningful", s.ControllerCPUSecondsBeforeFirstMeaningful)
	c.optCount(p+".apiRequestsBeforeFirstMeaningful", s.APIRequestsBeforeFirstMeaningful)
	c.optSeconds(p+".cacheSyncSeconds", s.CacheSyncSeconds)
	c.leaseSplit(p+".lease", s.Lease)
	if l := s.APILoad; l != nil {
		c.count(p+".apiLoad.lists", l.Lists)
		c.count(p+".apiLoad.watches", l.Watches)
		c.count(p+".apiLoad.gets", l.Gets)
		c.count(p+".apiLoad.leaseWrites", l.LeaseWrites)
	}
	if s.StandbyRSSBytes != nil {
		c.bytes(p+".standbyRSSBytes", *s.StandbyRSSBytes)
	}
	c.quantiles(p+".readinessGateFlip", s.ReadinessGateFlip)
	c.quantiles(p+".driftRepair", s.DriftRepair)
	o := s.Objects
	c.count(p+".objects.targetGroupBindings", o.TGBs)
	c.count(p+".objects.services", o.Services)
	c.count(p+".objects.endpointSlices", o.EndpointSlices)
	c.count(p+".objects.pods", o.Pods)
	c.count(p+".objects.nodes", o.Nodes)
	c.count(p+".objects.targetGroups", o.TargetGroups)
	c.counts(p+".objects.groups", o.Groups)
	if w := s.Work; w != nil {
		q := p + ".work"
		c.seconds(q+".scrapeIntervalSeconds", w.ScrapeIntervalSeconds)
		c.optSeconds(q+".reconcileSecondsBeforeFirstMeaningful", w.ReconcileSecondsBeforeFirstMeaningful)
		c.optCount(q+".reconcilesBeforeFirstMeaningful", w.ReconcilesBeforeFirstMeaningful)
		c.optSeconds(q+".drainedSeconds", w.DrainedSeconds)
		c.optSeconds(q+".reconcileSecondsUntilDrained", w.ReconcileSecondsUntilDrained)
		c.optCount(q+".reconcilesUntilDrained", w.ReconcilesUntilDrained)
		c.optCount(q+".earlyExits", w.EarlyExits)
		c.optSeconds(q+".earlyExitSecondsPerBinding", w.EarlyExitSecondsPerBinding)
	}
	c.memory(p+".memory", s.Memory)
	if m := s.Machine; m != nil {
		q := p + ".machine"
		c.count(q+".cpus", m.CPUs)
		c.within(q+".load1Start", m.Load1Start, 0, 1e6)
		c.within(q+".load1End", m.Load1End, 0, 1e6)
		c.within(q+".load1Max", m.Load1Max, 0, 1e6)
		c.within(q+".stealFraction", m.StealFraction, 0, 1)
		c.within(q+".otherCPUFraction", m.OtherCPUFraction, 0, 1)
		c.within(q+".busyFraction", m.BusyFraction, 0, 1)
		c.within(q+".parallel", float64(m.Parallel), 0, MaxRuns)
		c.seconds(q+".runCPUSeconds", m.RunCPUSeconds)
		c.seconds(q+".wallSeconds", m.WallSeconds)
		c.within(q+".iowaitFraction", m.IOWaitFraction, 0, 1)
		c.count(q+".schedDelay.count", m.SchedDelay.Count)
		c.within(q+".schedDelay.p50", m.SchedDelay.P50, 0, MaxSeconds*1000)
		c.within(q+".schedDelay.p99", m.SchedDelay.P99, 0, MaxSeconds*1000)
		c.within(q+".schedDelay.max", m.SchedDelay.Max, 0, MaxSeconds*1000)
		c.within(q+".probeIntervalMillis", m.ProbeIntervalMillis, 0, MaxSeconds*1000)
	}
}

// memory checks a summary's memory figures. Readings from the warm-up come before the measured
// phase, at negative scenario seconds, and the harness's process is instance -1.
func (c *checker) memory(p string, m *Memory) {
	if m == nil {
		return
	}
	c.seconds(p+".sampleIntervalSeconds", m.SampleIntervalSeconds)
	if !c.length(p+".instances", len(m.Instances), MaxCount) {
		return
	}
	optBytes := func(path string, v *int64) {
		if v != nil {
			c.bytes(path, *v)
		}
	}
	for i, in := range m.Instances {
		q := fmt.Sprintf("%s.instances[%d]", p, i)
		c.within(q+".instance", float64(in.Instance), HarnessInstance, MaxCount)
		c.within(q+".firstSeconds", in.FirstSeconds, -MaxSeconds, MaxSeconds)
		c.within(q+".lastSeconds", in.LastSeconds, -MaxSeconds, MaxSeconds)
		c.bytes(q+".peakRSSBytes", in.PeakRSSBytes)
		c.within(q+".peakRSSSeconds", in.PeakRSSSeconds, -MaxSeconds, MaxSeconds)
		c.bytes(q+".lastRSSBytes", in.LastRSSBytes)
		c.bytes(q+".highWaterMarkBytes", in.HighWaterMarkBytes)
		optBytes(q+".peakHeapInuseBytes", in.PeakHeapInuseBytes)
		if in.PeakHeapInuseSeconds != nil {
			c.within(q+".peakHeapInuseSeconds", *in.PeakHeapInuseSeconds, -MaxSeconds, MaxSeconds)
		}
		optBytes(q+".lastHeapInuseBytes", in.LastHeapInuseBytes)
		optBytes(q+".peakHeapAllocBytes", in.PeakHeapAllocBytes)
	}
	if r := m.Restart; r != nil {
		q := p + ".restart"
		c.within(q+".instance", float64(r.Instance), HarnessInstance, MaxCount)
		c.seconds(q+".fromSeconds", r.FromSeconds)
		c.bytes(q+".beforeRSSBytes", r.BeforeRSSBytes)
		optBytes(q+".beforeHeapInuseBytes", r.BeforeHeapInuseBytes)
		c.bytes(q+".peakRSSBytes", r.PeakRSSBytes)
		c.seconds(q+".peakRSSSeconds", r.PeakRSSSeconds)
		optBytes(q+".peakHeapInuseBytes", r.PeakHeapInuseBytes)
		c.optSeconds(q+".peakHeapSeconds", r.PeakHeapSeconds)
		c.bytes(q+".endRSSBytes", r.EndRSSBytes)
		optBytes(q+".endHeapInuseBytes", r.EndHeapInuseBytes)
		c.bytes(q+".highWaterMarkBytes", r.HighWaterMarkBytes)
	}
}

func (c *checker) quantiles(p string, q Quantiles) {
	c.count(p+".count", q.Count)
	c.seconds(p+".p50", q.P50)
	c.seconds(p+".p95", q.P95)
	c.seconds(p+".p99", q.P99)
	c.seconds(p+".max", q.Max)
	c.censored(p, q)
}

func (c *checker) ab(ab *AB) {
	c.name("ab.strategy", ab.Strategy)
	c.within("ab.repeats", float64(ab.Repeats), 0, MaxRuns)
	c.within("ab.block", float64(ab.Block), 0, MaxRuns)
	c.within("ab.maxRepeats", float64(ab.MaxRepeats), 0, MaxRuns)
	c.within("ab.parallel", float64(ab.Parallel), 0, MaxRuns)
	c.count("ab.starvedRuns", ab.StarvedRuns)
	c.within("ab.alpha", ab.Alpha, 0, 1)
	c.seconds("ab.budgetSeconds", ab.BudgetSeconds)
	c.length("ab.order", len(ab.Order), 2*MaxRuns)
	if c.length("ab.runSeconds", len(ab.RunSeconds), 2*MaxRuns) {
		for i, v := range ab.RunSeconds {
			c.seconds(fmt.Sprintf("ab.runSeconds[%d]", i), v)
		}
	}
	seen := map[string]bool{}
	known := MetricNames()
	for i, m := range ab.Metrics {
		p := fmt.Sprintf("ab.metrics[%d]", i)
		switch {
		case !slices.Contains(known, m.Metric):
			c.addf(p+".metric", "unknown metric %q", trunc(m.Metric))
		case seen[m.Metric]:
			c.addf(p+".metric", "%s is compared twice", m.Metric)
		}
		seen[m.Metric] = true
		c.value(p+".minEffect", m.MinEffect)
		c.value(p+".minDelta", m.MinDelta)
		c.value(p+".absEffect", m.AbsEffect)
		c.value(p+".weight", m.Weight)
	}
}

// Package sim runs a scenario end to end: for each strategy, on an identical seeded fleet and
// timeline, a fresh API server (sim/env), a fresh fakeaws, the fleet (sim/workload), a warm-up until
// AWS holds every target, the timeline (sim/timeline) with the measured AWS limits, the measurements
// (sim/measure) and the invariants; then results.json, timeseries.csv, the call log and a summary
// table.
//
// Time: the scenario's timeScale s multiplies AWS rates and divides every delay, the controller's
// durations included; all reported figures are scenario time. Errors: a ViolationError (invariant or
// threshold) is distinct from a failure of the run, and IsBadInput marks bad input or environment.
package sim

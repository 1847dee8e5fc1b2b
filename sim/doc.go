// Package sim runs a scenario end to end: for each strategy (arm) and repeat, on an identical seeded
// fleet and timeline, a strategyRun starts a fresh API server (sim/env), AWS (sim/backend), the fleet
// (sim/workload), the controller under test (sim/sut) and the harness's watch and invariant checker
// (sim/observe); it warms up until AWS holds every target, runs the timeline (sim/actions, scheduled
// by sim/timeline) under the measured AWS limits, and turns what was recorded into measurements
// (sim/measure). Then results.json, timeseries.csv, the call log, the report and a summary table.
//
// Time: the scenario's timeScale s multiplies AWS rates and divides every delay, the controller's
// durations included; all reported figures are scenario time. Errors: a *results.ViolationError
// (invariant or threshold) is a finding about the controller, distinct from a failure of the run;
// runerr.IsBadInput marks bad input or environment.
package sim

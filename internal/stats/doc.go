// Package stats is the one place the harness computes order statistics of its samples: the median
// the gate judges, the reports print and the A/B plot draws, and the nearest-rank quantiles of
// results.json. One rule for runs that never measured a value (Missing) keeps a side's median the
// same in every one of them.
package stats

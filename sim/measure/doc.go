// Package measure turns what a run recorded — the fakeaws call log, the API server's audit log of the
// controller's writes, pod watch observations and metric samples — into the figures of
// results.Summary. Every figure comes from AWS's or the API server's side, never from the
// controller's own claims.
//
// Each figure is a Measurement (a small interface with a registry, as in clusterloader2); Run applies
// them all to an Input. Times are scenario seconds since the start of the measured phase.
package measure

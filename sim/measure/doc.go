// Package measure turns what a run recorded — the fakeaws call log, the API server's audit log of the
// controller's writes, pod watch observations and metric samples — into the figures of
// results.Summary. Every figure comes from AWS's or the API server's side, never from the
// controller's own claims.
//
// Each measurement is a function of the Input that returns its own summary (as clusterloader2's
// measurements do); one that needs another's result, such as blind time the change timings, takes
// it as a parameter. Run calls them all and adds their summaries to one Output. Times are scenario
// seconds since the start of the measured phase.
package measure

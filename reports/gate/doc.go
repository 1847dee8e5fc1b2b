// Package gate is the CI regression gate: it checks a run's results.json against the rules of
// the scenario's gate section and against a baseline results.json kept in a file or in S3.
//
// Rules favour figures that do not depend on machine speed (AWS calls before the first
// meaningful reconcile, Kubernetes writes, TTFMR as a ratio to another strategy of the same
// run); each rule may set an absolute Max and/or an allowed MaxRegression over the baseline
// plus an absolute Slack. A failed check is a *results.ViolationError, distinct from bad input
// (unknown metric or strategy, a metric absent from the results, unreadable baseline), so a
// CLI can map the two to different exit codes.
package gate

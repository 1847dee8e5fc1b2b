// Package reports turns a run's results.json and timeseries.csv into PNG figures and one
// self-contained HTML report.
//
// Data preparation (internal/dataset) is kept apart from drawing (internal/chart): every
// plotted series is computed from the results and samples alone, so what a figure shows can
// be checked against the input files. Render is the only entry point; the simulation calls it
// after each run and `restartsim report` calls it on saved results.
//
// The CI regression gate lives in the sub-package gate.
package reports

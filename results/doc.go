// Package results is the schema of a simulation's output: results.json and timeseries.csv.
//
// sim writes these files; reports and gate read them. The package holds plain data and its
// encoding only, so that readers never depend on the simulation itself.
package results

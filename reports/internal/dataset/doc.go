// Package dataset prepares the plotted data from results.json and timeseries.csv. It never
// imports the plotting library: every series is a plain type that satisfies gonum's XYer or
// Valuer interfaces structurally, so package chart plots it without copying.
package dataset

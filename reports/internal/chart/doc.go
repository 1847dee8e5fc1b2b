// Package chart draws the report figures with gonum/plot from the prepared data of package
// dataset. It does no data preparation of its own: every plotted series is a dataset value,
// passed to gonum through its XYer and Valuer interfaces.
package chart

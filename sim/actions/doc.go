// Package actions performs a scenario's timeline during the measured phase: controller restarts,
// churn of the fleet, container restarts and node replacements, AWS faults and drift, and the waits
// for a leader or a steady state. It records what it did, in scenario seconds, as the measurements
// read it (Recorded).
package actions

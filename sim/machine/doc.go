// Package machine measures the machine a run's measured phase ran on: the kernel's load average,
// CPU steal and iowait, and how late a harness goroutine wakes up. A regression gate compares
// runs, and a run on a saturated machine is slower for reasons that are not the controller's.
// The watch records the figures; sim/measure judges whether they make the run saturated.
package machine

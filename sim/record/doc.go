// Package record runs a run's live recorders — the sampler of the controller's queue depths, the
// scrapes of its instances' reconcile work and memory, the watch of the machine — and collects
// what they recorded into the measurements' Input.
//
// Every recorder is registered in one factory (as kube-burner's measurements are) with Start,
// Stop and Collect; a run builds a Set of them all, starts each at its moment, stops them
// together and collects them once. sim/measure then computes every figure from the Input alone.
package record

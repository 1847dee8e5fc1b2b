// Package sut is the controller under test behind one Controllers interface: in-process replicas of
// the reference controller (with the mapping from a scenario strategy to controller.Options), the
// reference controller's binary run out of process, any external controller's processes, or
// controller-runtime managers a Go test fills (inProcess strategies, package restartsimtest), with
// what the harness watches of them (leases, logs, caches, CPU and memory, unexpected exits).
package sut

// Package sut is the controller under test behind one Controllers interface: in-process replicas of
// the reference controller (with the mapping from a scenario strategy to controller.Options), the
// reference controller's binary run out of process, or any external controller's processes, with
// what the harness watches of them (leases, logs, CPU and memory, unexpected exits).
package sut

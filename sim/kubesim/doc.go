// Package kubesim plays, for the fleet's pods, the parts of Kubernetes that envtest lacks: the
// kubelet's readiness rule (a pod is Ready when its containers are and every readiness-gate condition
// is True), a heartbeat Lease per fleet node, and the endpoint controller (each Service's
// EndpointSlice lists its pods as ready, serving or terminating, as the real controller derives them).
//
// The Simulator does this from informers, one pod or one Service per work item. readiness.go holds
// the rules themselves, which the fleet also applies when it creates or restarts a pod; SyncSlice is
// the one way a slice is rewritten, shared by the Simulator and the fleet's mutations: it reads the
// slice, then the pods, and updates under the slice's resourceVersion, so neither writer can
// overwrite the other with older state. ServiceLabel, ManagedBy and SliceName are how the fleet's
// objects tell the Simulator which pods and slices are its.
package kubesim

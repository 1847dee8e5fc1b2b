// Package localcluster runs a real Kubernetes control plane on loopback: etcd, kube-apiserver and
// kube-controller-manager as separate processes, built from source like envtest's binaries, with
// client-certificate authentication, RBAC, a service-account signing key and the controller
// manager's default controllers (namespace finalization, garbage collection, EndpointSlices, node
// lifecycle, service accounts). It is what a cluster looks like to the harness, without a kubelet or
// a scheduler: the fleet's pods are bound to its simulated Nodes.
//
// Up starts the processes detached from the caller, so a cluster outlives the command that started
// it; Down stops them from the state file Up leaves in the cluster's directory.
package localcluster

// Package env provides the Kubernetes API server a simulation runs against: a fresh envtest
// control plane (kube-apiserver + etcd, the TargetGroupBinding CRD installed, an audit log of the
// controller's writes) or an existing cluster reached through a kubeconfig.
//
// The controller under test gets its own identity (user restartsim-controller on envtest), so the
// simulation can count the controller's Kubernetes writes from the API server's audit log rather
// than from the controller's own claims.
package env

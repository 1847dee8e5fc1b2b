// Package envtestassets finds the kube-apiserver and etcd binaries that envtest starts.
//
// setup-envtest cannot download here, so `make envtest-assets` builds both from the Go module proxy
// into bin/k8s/<Version>/. Everything that starts envtest finds them through Dir.
package envtestassets

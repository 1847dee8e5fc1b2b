// Package envtestassets finds, and builds, the kube-apiserver and etcd binaries that envtest starts.
//
// setup-envtest's downloads are not always reachable, so Ensure builds both from source with the go
// command through the Go module proxy, from Go modules embedded in this package (modules/), into a
// directory: the user cache for `restartsim assets`, bin/k8s/<Version> for `make envtest-assets`
// (hack/envtest-assets). A stamp beside each binary makes a second Ensure a stat and a small read.
// Everything that starts envtest finds the binaries through Dir, which looks where Lookup says.
package envtestassets

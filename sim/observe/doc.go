// Package observe is what the harness sees of a run from outside the controller: one watch of the
// run's objects in the cluster, the invariant checker that compares AWS with the desired state they
// imply, when AWS first shows each Ingress-side change (IngressApplied), the warm-up's waits, the
// queue-depth sampler and the harness's own memory.
package observe

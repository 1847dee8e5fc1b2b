// Package restartsimtest measures a controller-runtime controller's restart from its author's own
// `go test`: the scenario's fleet, timeline and thresholds run against a real kube-apiserver and
// etcd (envtest) and fakeaws, and the controller under test is the test's own reconcilers.
//
// Each replica (every instance before and after a restart) is a fresh manager.Manager that the
// harness builds on the run's API server: leader election on the strategy's Lease, no metrics
// server (the harness reads controller-runtime's metrics registry in process), health probes on a
// free loopback port. The test's SetupFunc registers its reconcilers with it, with an Env that
// points its AWS clients at fakeaws. A crash cancels the manager with its Kubernetes and AWS
// access cut first, so it releases no Lease and lands nothing it had in flight; a graceful stop
// cancels it and waits until it returned.
//
// The scenario declares which strategies are the test's with `inProcess`:
//
//	controller:
//	  strategies:
//	    - {name: mine, inProcess: {}}
//
// Run fails the test, through t.Errorf, for every threshold the run breached (naming the metric,
// its value and the limit) and every invariant violated, and returns the results for further
// assertions. Every replica runs in the test's process, so the memory figures of the results are
// the test process's (harness, fakeaws and replicas together), not the controller's alone. For the
// same reason, controller-runtime's metrics being the process's, runs in one test binary take
// turns: a parallel test's Run waits until the other's has returned.
package restartsimtest

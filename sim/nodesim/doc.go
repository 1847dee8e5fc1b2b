// Package nodesim plays the kubelet of EC2 instances: when fakeaws holds a running instance it
// registers a Node for it as an EKS node's kubelet would (name, provider ID, well-known labels,
// the labels and taints of its user data, capacity from its instance type), marks it Ready after a
// join delay, renews its Lease, and runs the pods the scheduler binds to it. An instance that shuts
// down or disappears takes its Node NotReady, then away with its pods, as the node lifecycle and pod
// garbage collectors would.
//
// It reads instances through fakeaws's admin side (sim/backend.Backend.Instances), never through
// the throttled EC2 API the controller under test shares, so it costs the measured controller no
// tokens.
package nodesim

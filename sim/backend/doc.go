// Package backend is the AWS a simulation runs against: an in-process fakeaws or a standalone one
// through its admin API, behind one Backend interface, plus what the harness does to it directly
// (provisioning the fleet's target and security groups, the measured phase's limits, a cut-off
// proxy per controller instance that "crashes" it off the network).
package backend

// Package state is fakeaws's in-memory account: VPCs and subnets, instances, ENIs, security groups, target
// groups with their targets, and load balancers with their listeners and rules. Every method is safe for
// concurrent use; time is passed in (scenario time), never read.
package state

// Package state is fakeaws's in-memory account: VPCs, instances, ENIs, security groups and target groups with
// their targets. Every method is safe for concurrent use; time is passed in (scenario time), never read.
package state

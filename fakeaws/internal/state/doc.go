// Package state is fakeaws's in-memory account: VPCs and subnets, instances, ENIs, security groups, target
// groups with their targets, load balancers with their listeners and rules, and Route53 hosted zones with
// their record sets and changes. Every method is safe for concurrent use; time is passed in (scenario time),
// never read.
package state

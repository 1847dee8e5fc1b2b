// Package awsclient builds the controller's ELBv2 and EC2 clients (aws-sdk-go-v2, standard retryer,
// client-side throttle, per-attempt metrics), classifies AWS errors, and wraps the calls a
// TargetGroupBinding reconcile makes with the caches upstream keeps (target health per target
// group, ENI and instance security groups, security groups, VPC CIDRs).
package awsclient

// Package checkpoint computes a TargetGroupBinding's reconcile checkpoint (a hash of its resolved
// endpoints and its spec) and reads and writes it in the two annotation forms:
//
//   - annotation (upstream AWS Load Balancer Controller): elbv2.k8s.aws/checkpoint = <endpointsHash>/<specHash>
//     and elbv2.k8s.aws/checkpoint-timestamp = Unix seconds;
//   - compact (the maintainers' never-built follow-up): elbv2.k8s.aws/checkpoint = <hash>/<unixSeconds>,
//     which also accepts the upstream form when reading.
//
// The reset value is the empty string in both forms; a real value always contains "/".
package checkpoint

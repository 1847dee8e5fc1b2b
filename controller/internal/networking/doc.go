// Package networking manages the security group ingress rules TargetGroupBindings ask for. Rules
// wanted by every TargetGroupBinding are aggregated per security group under one lock, and only the
// differences are authorized or revoked; a rule is revoked only when no TargetGroupBinding wants it
// and every TargetGroupBinding with networking has been reconciled since start (so a restart never
// revokes rules it has not recomputed yet). The controller owns only rules carrying RuleDescription.
package networking

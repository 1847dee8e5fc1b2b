// Package controller is a TargetGroupBinding controller in the style of the AWS Load Balancer
// Controller (LBC): it binds a Service's endpoints to an ELBv2 target group (IP or instance
// targets), manages security group ingress rules and pod readiness gates, and can be switched
// between startup strategies so that one build can be measured under each:
//
//   - Checkpoint=none: every reconcile is a full one (LBC before checkpointing);
//   - Checkpoint=annotation: LBC v3.5's checkpoint annotations, early exit and deferred queue;
//   - Checkpoint=compact: one annotation and an in-controller requeue instead of an API write;
//   - PriorityQueue / LowPriorityInitialEvents: controller-runtime's priority queue, and whether the
//     controller's own watch handlers also push initial-list events to low priority;
//   - Resume: a restart fast path (resume.go, internal/resume) that watches from a recorded
//     resource version and reconciles the bindings changed since then with live reads before the
//     caches have synced, so the start-up is no longer a wait linear in the fleet for those changes.
//
// Drift (upstream #4889): a matching checkpoint only says the Kubernetes side is unchanged, not that
// AWS still matches it. The reference therefore runs a periodic, Describe-only drift check for each
// binding whose checkpoint matches: every DriftCheckInterval (default 5m, plus jitter up to half of
// it, first due one interval after the binding's first early exit so a restart stays free of AWS
// calls) the early exit first reads the target group's targets (DescribeTargetHealth) and, when the
// binding has networking rules, its targets' security groups (DescribeSecurityGroups); data younger
// than half the interval is reused, so bindings sharing a security group cost one describe. If a
// wanted target is missing (or an owned one is extra) or an owned ingress rule was revoked, the
// reconcile becomes a full one, which resets the checkpoint before repairing and saves it after.
// No mutation and no API write happens while AWS matches, so the checkpoint keeps its purpose; the
// deferred full reconcile stays as the backstop. Cost: about one DescribeTargetHealth per binding
// per interval. A negative interval turns the check off (upstream behaviour).
//
// Bindings pointing at a missing Service, Service port or target group get Ready=False with reason
// ServiceNotFound, ServicePortNotFound or TargetGroupNotFound and a Warning event, and are retried
// by the work queue with per-item exponential backoff (see BindingError).
//
// Load balancers (Options.LoadBalancers): the Ingress and Service reconcilers of package lb run beside
// the TGB one on the same manager and AWS clients; they turn each Ingress group and LoadBalancer
// Service into an ELBv2 stack and the TargetGroupBindings this controller then binds. With
// ModelCheckpoint=model a restart skips every stack whose model checkpoint still matches.
//
// Mutants (mutants.go) re-introduce known bugs for mutation testing; Options.Validate refuses them
// unless AllowMutants is set or the binary is built with -tags mutants.
//
// Strategy knobs (knobs.go, knobs_table.go): the Options a strategy of the harness varies are
// declared once in Knobs, with their defaults, flags of `restartsim controller` and scenario fields.
//
// New registers everything on a controller-runtime manager the caller starts; nothing is global, so
// a process may create, start and stop many controllers (each one like a fresh process).
// Subpackages under internal/ hold the small units the reconciler composes.
package controller

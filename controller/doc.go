// Package controller is a TargetGroupBinding controller in the style of the AWS Load Balancer
// Controller (LBC): it binds a Service's endpoints to an ELBv2 target group (IP or instance
// targets), manages security group ingress rules and pod readiness gates, and can be switched
// between startup strategies so that one build can be measured under each:
//
//   - Checkpoint=none: every reconcile is a full one (LBC before checkpointing);
//   - Checkpoint=annotation: LBC v3.5's checkpoint annotations, early exit and deferred queue;
//   - Checkpoint=compact: one annotation and an in-controller requeue instead of an API write;
//   - PriorityQueue / LowPriorityInitialEvents: controller-runtime's priority queue, and whether the
//     controller's own watch handlers also push initial-list events to low priority.
//
// New registers everything on a controller-runtime manager the caller starts; nothing is global, so
// a process may create, start and stop many controllers (each one like a fresh process).
// Subpackages under internal/ hold the small units the reconciler composes.
package controller

// Package endpoints resolves the targets a TargetGroupBinding wants from cached Kubernetes objects:
// IP targets from EndpointSlices (upstream readiness rules, plus not-ready pods held back only by
// the TargetGroupBinding's readiness gate) and instance targets from Nodes (nodeSelector, NodePort).
// It is pure: callers hand it objects and lookups, it returns targets and checkpoint identifiers.
package endpoints

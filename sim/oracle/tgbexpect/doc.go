// Package tgbexpect derives what AWS should hold for each TargetGroupBinding — its target group's
// targets, the readiness gates that must turn True, and the security group rules of spec.networking
// — from the cluster alone: TargetGroupBindings, Services, EndpointSlices, Pods and Nodes.
//
// It is the TargetGroupBinding half of the harness's oracle; sim/oracle/lbexpect, beside it, is the
// load balancer half for Ingresses and Services. Like lbexpect it never asks a controller or the
// fleet's plan: an invariant that builds its expectation from the code it checks can never see that
// code's mistakes. Pod and node readiness are read with the kubelet's rules (sim/kubesim).
package tgbexpect

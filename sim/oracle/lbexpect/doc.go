// Package lbexpect derives the AWS load balancers that the AWS Load Balancer Controller (LBC)
// deploys for Kubernetes objects: one application load balancer per Ingress group of a class and
// one network load balancer per Service LBC serves, with their listeners, rules and the target
// groups the rules forward to.
//
// The expectation comes from the objects and LBC's documented annotations and behaviour only
// (upstream v3.5), never from a controller's model: an invariant that builds its expectation with
// the code it checks can never see that code's mistakes. It holds only what an invariant compares
// in AWS — which load balancers exist, their type and scheme, listener ports and protocols, rule
// priorities, conditions and actions, and each forwarded target group's identity (LBC's resource
// tag), protocol, target type and health check path — not names, subnets, attributes or tags
// beyond the ones that identify a stack's resources. Its sibling sim/oracle/tgbexpect is the same
// kind of oracle for TargetGroupBindings.
//
// LBC's flags are taken at their defaults (default scheme internal, default target type instance,
// a missing backend Service or action annotation answered with a fixed 503), and an Ingress is of
// the class by spec.ingressClassName or the kubernetes.io/ingress.class annotation naming it.
//
// Not modelled (an object using them is expected as if they were absent): the conditions.* and
// transforms.* annotations, use-regex-path-match, ssl-redirect, JWT validation, TLS listeners of
// a network load balancer, TCP_UDP listeners, the rule optimiser's removal of redirect loops, and
// IngressClassParams fields other than scheme. Cognito authentication makes a stack invalid here.
package lbexpect

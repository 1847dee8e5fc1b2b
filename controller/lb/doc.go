// Package lb holds the Ingress and Service (type LoadBalancer) reconcilers, in the style of LBC's
// controllers/ingress and controllers/service. Each Ingress group (alb.ingress.kubernetes.io/group.name,
// one ALB per group) and each Service of type LoadBalancer served by an NLB becomes an ELBv2 stack:
// lbmodel builds it from the objects, lbdeploy makes AWS match it (found by LBC's tags), and the
// reconcilers create the TargetGroupBindings of its target groups, which the TargetGroupBinding
// controller beside them then binds.
//
// With Config.ModelCheckpoint each member stores the SHA-256 of its stack's model and of every input
// the model read (Services, Secrets by content digest, the IngressClassParams the IngressClass
// names) in the elbv2.k8s.aws/model-checkpoint annotation, and a restart skips every group whose
// checkpoint still matches, with no AWS call: LBC's unmerged prototype for its Ingress restart storm
// (aws-load-balancer-controller#3540), with the inputs hashed too, so a Secret rotated while the
// controller was down is not skipped.
package lb

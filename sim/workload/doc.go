// Package workload owns the simulated cluster workload of a restartsim run: the fleet of
// TargetGroupBindings with their Services, Pods, EndpointSlices and Nodes, the AWS resources behind
// them, the simulated kubelet and endpoint controller that envtest lacks, the mutations a timeline
// applies, and the desired state that invariants are checked against.
//
// The flow is:
//
//	fleet := workload.Plan(spec, rng)          // pure and deterministic: same seed, same fleet
//	stats, err := fleet.Create(ctx, opts)      // many concurrent writers, pipelined per TGB
//	sim, _ := workload.NewSimulator(cfg, simOpts); go sim.Start(ctx)
//	ch, err := fleet.ScaleService(ctx, key, +2) // each mutation returns the meaningful FleetChange
//	want, err := workload.Desired(ctx, c)       // computed from the cluster only
//	fleet.Cleanup(ctx)                          // for --kubeconfig runs
//
// Everything random (names, instance IDs, node assignment, which TGBs use instance targets,
// readiness gates or networking, which pod a mutation picks) is drawn from seeded RNGs; IPs are
// allocated sequentially from the pod range, so a replayed run produces the same objects.
//
// # The Ingress side
//
// Spec.Ingresses adds ALB Ingresses (IngressClass alb) in IngressGroups that share one load balancer,
// their backend Services, TLS and OIDC client Secrets, and NLB Services of type LoadBalancer, all with
// pods and EndpointSlices like the TGBs' but with no TargetGroupBinding or target group: the
// controllers under test build those from the Ingresses and Services. It is planned after the TGB
// fleet, so a fleet without it is the same as before it existed. Its changes (AddIngressRule,
// ChangeBackendPort, ChangeBackendTargetPort, RotateOIDCSecret, ChangeHealthCheckPath) each change one
// input of an Ingress's model and record, as FleetChange.Expect, what AWS must end up showing.
//
// # AWS networking
//
// Pods use security groups for pods: each has a branch ENI with its IP and security group, on its
// node's trunk ENI, named in the vpc.amazonaws.com/pod-eni annotation as the VPC resource controller
// writes it (podeni.go). A controller finds a pod's group from the annotation or from the pod IP; the
// node and pod groups carry the cluster tag kubernetes.io/cluster/<Spec.ClusterName>.
//
// # Writers
//
// Create and the mutations write EndpointSlices directly, so a FleetChange is reflected in the cluster when
// the mutation returns; the Simulator (the simulated kubelet and endpoint controller) keeps pod
// readiness and the slices consistent afterwards, e.g. when a controller flips a readiness gate. Both
// sync a slice from consistent API reads under the slice's resourceVersion, so neither can overwrite
// the other with older state. Start the Simulator after Create: during Create it would only add
// informer load. Mutations of different TGBs may run concurrently; Create must finish first. The node
// mutations (JoinNode, NodeNotReady, ReplaceNode) run one at a time, concurrently with TGB mutations;
// nothing else writes a Node's status (node heartbeats are Leases), so a NotReady node stays NotReady.
//
// Services are selectorless (the simulator, not a real endpoint controller, owns their
// EndpointSlices; on a real cluster the built-in controller therefore leaves them alone). Services of
// ip TargetGroupBindings are headless so that large fleets do not exhaust envtest's default
// /24 service CIDR; instance TargetGroupBindings need NodePort Services, which do take a cluster IP:
// start the API server with a larger --service-cluster-ip-range (e.g. 10.96.0.0/12) for more than
// ~250 of them.
package workload

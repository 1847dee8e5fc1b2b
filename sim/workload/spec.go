package workload

import (
	"errors"
	"fmt"
	"net/netip"
	"regexp"
)

// Spec describes the fleet to plan. Zero values take the documented defaults (see WithDefaults), except
// Namespaces, which the caller decides (the scenario's fleet.namespaces).
type Spec struct {
	// TGBs is the number of TargetGroupBindings, one Service each. Required (≥ 0; 0 plans an empty fleet).
	TGBs int
	// Namespaces is the number of namespaces the TGBs are spread over, round-robin. Required (≥ 1): the
	// spread is the caller's choice, so it has no default here.
	Namespaces int
	// NamespacePrefix names the namespaces <prefix>-<NN>. Default "restartsim".
	NamespacePrefix string
	// PodsPerService is the number of pods (targets) behind each Service. Default 3; must be ≥ 1.
	PodsPerService int
	// InstanceShare is the fraction of TGBs with targetType instance (NodePort Service, nodes as targets).
	// Default 0.
	InstanceShare float64
	// ReadinessGateShare is the fraction of ip TGBs whose pods carry the readiness gate
	// target-health.elbv2.k8s.aws/<tgb-name>. Default 0.
	ReadinessGateShare float64
	// NetworkingShare is the fraction of TGBs with spec.networking ingress rules. Default 0.
	NetworkingShare float64
	// TargetGroupProtocolShare is the fraction of TGBs whose spec names their target group's protocol
	// (targetGroupProtocol HTTP, the protocol the fleet's target groups have). Default 0.
	TargetGroupProtocolShare float64
	// AssumeRoleShare is the fraction of TGBs whose spec names an IAM role to assume for their target
	// group (iamRoleArnToAssume, a role in the target group's account), every other one with an
	// external ID (assumeRoleExternalId). Default 0.
	AssumeRoleShare float64
	// NamedPortShare is the fraction of ip TGBs whose Service has a second port, named metrics, that
	// their EndpointSlices list beside http, and whose serviceRef names the Service port (http)
	// instead of giving its number. Default 0.
	NamedPortShare float64
	// DuplicateEndpointShare is the fraction of ip TGBs whose Service has a second EndpointSlice that
	// lists the first endpoint of its slice again, as the EndpointSlice controller does for a while
	// when it moves an endpoint between slices. Needs the simulated EndpointSlices (not
	// ClusterEndpointSlices). Default 0.
	DuplicateEndpointShare float64
	// SecurityGroups is the number of shared security groups that pods' ENIs and nodes carry (one each,
	// drawn at random). One more group, the load balancer's, is the source of networking rules. Default 2.
	SecurityGroups int
	// Nodes is the number of Nodes (EC2 instances) pods run on and instance targets register. Default 3.
	Nodes int
	// Zones are the availability zones nodes are spread over. Default us-west-2a, us-west-2b, us-west-2c.
	Zones []string
	// VpcID is put in every TGB's spec.vpcID and passed to the Provisioner. Default "": the TGBs carry no
	// vpcID and the Provisioner uses its default VPC.
	VpcID string
	// VPCCIDR is the VPC's address range; networking rules with an ipBlock allow it. Default "10.0.0.0/16"
	// (fakeaws's default VPC).
	VPCCIDR string
	// NodeCIDR is the part of the VPC node IPs come from; pod IPs are the rest of the VPC, allocated in
	// order and never reused. Default "10.0.0.0/22".
	NodeCIDR string
	// Port is the container port (the ip target port). Default 8080.
	Port int32
	// ServicePort is the Service port the TGBs reference (by number). Default 80.
	ServicePort int32
	// ClusterName is the cluster the nodes' and pods' security groups and ENIs are tagged for
	// (kubernetes.io/cluster/<name>: owned), the tag a controller uses to pick and find the security
	// groups it manages rules on. Default "restartsim", the cluster name the harness gives controllers.
	ClusterName string
	// ClusterEndpointSlices leaves the EndpointSlices to the cluster's EndpointSlice controller
	// (kube-controller-manager): Services select their pods, and the fleet writes no slices. Default
	// false: Services are selectorless and the fleet and the Simulator write their slices, as envtest
	// has no controller manager.
	ClusterEndpointSlices bool
	// Ingresses is the Ingress side of the fleet (ALB Ingresses, their backends, NLB Services). Its
	// zero value plans none of it, so a TGB-only fleet is planned exactly as without it.
	Ingresses IngressSpec
}

// Defaults of Spec.
const (
	DefaultNamespacePrefix = "restartsim"
	DefaultPodsPerService  = 3
	DefaultSecurityGroups  = 2
	DefaultNodes           = 3
	DefaultVPCCIDR         = "10.0.0.0/16"
	DefaultNodeCIDR        = "10.0.0.0/22"
	DefaultPort            = 8080
	DefaultServicePort     = 80
	DefaultClusterName     = "restartsim"
	nodePortMin            = 30000
	nodePortMax            = 32767
)

// WithDefaults returns s with every zero field but Namespaces set to its documented default.
func (s Spec) WithDefaults() Spec {
	if s.NamespacePrefix == "" {
		s.NamespacePrefix = DefaultNamespacePrefix
	}
	if s.PodsPerService == 0 {
		s.PodsPerService = DefaultPodsPerService
	}
	if s.SecurityGroups == 0 {
		s.SecurityGroups = DefaultSecurityGroups
	}
	if s.Nodes == 0 {
		s.Nodes = DefaultNodes
	}
	if len(s.Zones) == 0 {
		s.Zones = []string{"us-west-2a", "us-west-2b", "us-west-2c"}
	}
	if s.VPCCIDR == "" {
		s.VPCCIDR = DefaultVPCCIDR
	}
	if s.NodeCIDR == "" {
		s.NodeCIDR = DefaultNodeCIDR
	}
	if s.Port == 0 {
		s.Port = DefaultPort
	}
	if s.ServicePort == 0 {
		s.ServicePort = DefaultServicePort
	}
	if s.ClusterName == "" {
		s.ClusterName = DefaultClusterName
	}
	s.Ingresses = s.Ingresses.withDefaults()
	return s
}

var (
	dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	vpcIDRE  = regexp.MustCompile(`^vpc-[0-9a-f]+$`)
	// accountIDRE is an AWS account ID, as ARNs carry it.
	accountIDRE = regexp.MustCompile(`^[0-9]{12}$`)
)

// Validate reports every problem of a defaulted Spec, each naming its field.
func (s Spec) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if s.TGBs < 0 {
		bad("tgbs", "must be ≥ 0, got %d", s.TGBs)
	}
	if s.Namespaces < 1 {
		bad("namespaces", "must be ≥ 1, got %d", s.Namespaces)
	}
	if len(s.NamespacePrefix) > 50 || !dnsLabel.MatchString(s.NamespacePrefix) {
		bad("namespacePrefix", "must be a DNS label of at most 50 characters, got %q", s.NamespacePrefix)
	}
	if s.PodsPerService < 1 {
		bad("podsPerService", "must be ≥ 1, got %d", s.PodsPerService)
	}
	for name, v := range map[string]float64{"instanceShare": s.InstanceShare, "readinessGateShare": s.ReadinessGateShare,
		"networkingShare": s.NetworkingShare, "targetGroupProtocolShare": s.TargetGroupProtocolShare,
		"assumeRoleShare": s.AssumeRoleShare, "namedPortShare": s.NamedPortShare, "duplicateEndpointShare": s.DuplicateEndpointShare} {
		if v < 0 || v > 1 {
			bad(name, "must be in [0, 1], got %v", v)
		}
	}
	if n := share(s.TGBs, s.InstanceShare); n > nodePortMax-nodePortMin+1 {
		bad("instanceShare", "%d instance TGBs exceed the %d NodePorts of 30000-32767", n, nodePortMax-nodePortMin+1)
	}
	if s.NamedPortShare > 0 && (s.Port == MetricsPort || s.ServicePort == MetricsPort) {
		bad("namedPortShare", "the second Service port, %s %d, clashes with port %d or servicePort %d", MetricsPortName, MetricsPort, s.Port, s.ServicePort)
	}
	if s.DuplicateEndpointShare > 0 && s.ClusterEndpointSlices {
		bad("duplicateEndpointShare", "needs the simulated EndpointSlices: the cluster's EndpointSlice controller writes this cluster's")
	}
	if s.SecurityGroups < 1 {
		bad("securityGroups", "must be ≥ 1, got %d", s.SecurityGroups)
	}
	if s.Nodes < 1 {
		bad("nodes", "must be ≥ 1, got %d", s.Nodes)
	}
	if s.VpcID != "" && !vpcIDRE.MatchString(s.VpcID) {
		bad("vpcID", "must match ^vpc-[0-9a-f]+$, got %q", s.VpcID)
	}
	if s.Port < 1 || s.Port > 65535 {
		bad("port", "must be in 1-65535, got %d", s.Port)
	}
	if s.ServicePort < 1 || s.ServicePort > 65535 {
		bad("servicePort", "must be in 1-65535, got %d", s.ServicePort)
	}
	vpc, err1 := netip.ParsePrefix(s.VPCCIDR)
	nodes, err2 := netip.ParsePrefix(s.NodeCIDR)
	switch {
	case err1 != nil || !vpc.Addr().Is4():
		bad("vpcCIDR", "must be an IPv4 CIDR, got %q", s.VPCCIDR)
	case err2 != nil || !nodes.Addr().Is4():
		bad("nodeCIDR", "must be an IPv4 CIDR, got %q", s.NodeCIDR)
	default:
		if !vpc.Contains(nodes.Masked().Addr()) || nodes.Bits() < vpc.Bits() {
			bad("nodeCIDR", "%s must lie inside vpcCIDR %s", s.NodeCIDR, s.VPCCIDR)
		}
		if free := 1<<(32-nodes.Bits()) - 2; 2*s.Nodes > free {
			bad("nodes", "%d nodes (two addresses each, the node's and its trunk ENI's) do not fit in nodeCIDR %s", s.Nodes, s.NodeCIDR)
		}
		if pods := s.TGBs*s.PodsPerService + s.Ingresses.pods(s.PodsPerService); pods > 1<<(32-vpc.Bits())-1<<(32-nodes.Bits()) {
			bad("podsPerService", "%d pods do not fit in vpcCIDR %s outside nodeCIDR", pods, s.VPCCIDR)
		}
	}
	if err := s.Ingresses.validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// share is the number of n items a fraction selects, rounded to nearest.
func share(n int, fraction float64) int {
	return min(n, int(float64(n)*fraction+0.5))
}

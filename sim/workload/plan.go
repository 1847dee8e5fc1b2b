package workload

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/internal/providerid"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

// FleetPlan is a planned (and, after Create, live) fleet. The exported fields are the plan; mutations keep
// them current under the FleetPlan's lock, so read them only before Create or through the accessor methods.
type FleetPlan struct {
	// Spec is the defaulted spec the fleet was planned from.
	Spec Spec
	// Namespaces are the namespaces, in order.
	Namespaces []string
	// Nodes are the nodes, in order.
	Nodes []NodePlan
	// TGBs are the TargetGroupBindings, in order of creation.
	TGBs []*TGBPlan
	// SecurityGroupNames are the shared pod/node security groups followed by the load balancer's
	// (the source of networking rules).
	SecurityGroupNames []string

	mu       sync.Mutex
	rng      *rand.Rand // mutations' own stream, split off the Plan RNG
	podIPs   *ipAllocator
	nodeIPs  *ipAllocator // the node range; joined nodes take its next addresses
	vlans    map[int]int  // the last VLAN ID handed out on each node's trunk, by node index
	notReady int          // nodes marked NotReady (NodeNotReady)
	// nodesMu guards Nodes for readers that do not hold mu (pod objects name their node); node
	// mutations change Nodes holding both, mu first.
	nodesMu   sync.RWMutex
	nodeLock  sync.Mutex // serialises node mutations, as TGBPlan.lock does a TGB's
	nodePorts []int32    // unused NodePorts in drawing order
	nextTGB   int
	byKey     map[types.NamespacedName]*TGBPlan
	live      *liveState // set by Create

	// The Ingress side (ingressplan.go), empty unless Spec.Ingresses asks for it.
	IngressGroups        []*IngressGroupPlan
	IngressPlans         []*IngressPlan
	BackendServices      []*ServicePlan
	LoadBalancerServices []*ServicePlan
	ingressByKey         map[types.NamespacedName]*IngressPlan
	serviceByKey         map[types.NamespacedName]*ServicePlan
}

// NodePlan is one Node and its EC2 instance, with the trunk ENI the VPC resource controller attaches
// to it for security groups for pods (pods' branch ENIs hang off it).
type NodePlan struct {
	Name       string
	InstanceID string
	PrivateIP  string
	// TrunkIP is the trunk ENI's primary address, the node range's address after PrivateIP.
	TrunkIP string
	Zone    string
	// SecurityGroup indexes SecurityGroupNames.
	SecurityGroup int
	// NotReady is set when NodeNotReady (or ReplaceNode) turned the node's Ready condition False; new
	// pods are no longer placed on it.
	NotReady bool
}

// ProviderID is the node's spec.providerID, aws:///<zone>/<instance-id>.
func (n NodePlan) ProviderID() string { return providerid.Format(n.Zone, n.InstanceID) }

// NetworkingSource is where a TGB's networking rule allows traffic from.
type NetworkingSource string

// Networking sources.
const (
	NetworkingNone          NetworkingSource = ""
	NetworkingSecurityGroup NetworkingSource = "securityGroup" // the load balancer's security group
	NetworkingIPBlock       NetworkingSource = "ipBlock"       // the VPC CIDR
)

// TGBPlan is one TargetGroupBinding with its Service (same namespace and name) and pods.
type TGBPlan struct {
	Namespace       string
	Name            string
	TargetGroupName string
	TargetType      v1beta1.TargetType
	// ReadinessGate means the pods carry the gate target-health.elbv2.k8s.aws/<Name> (ip only).
	ReadinessGate bool
	// TargetGroupProtocol is the spec's targetGroupProtocol ("": unset).
	TargetGroupProtocol v1beta1.TargetGroupProtocol
	// AssumeRole sets the spec's iamRoleArnToAssume (AssumeRoleARN of the target group's account), and
	// AssumeRoleExternalID its assumeRoleExternalId ("": unset).
	AssumeRole           bool
	AssumeRoleExternalID string
	// NamedPort gives the Service a second port, metrics, which the EndpointSlice lists too, and makes
	// the serviceRef name the Service port instead of giving its number (ip only).
	NamedPort bool
	// DuplicateEndpoint gives the Service a second EndpointSlice that lists the first endpoint of its
	// slice again (ip only).
	DuplicateEndpoint bool
	// Networking is the source of the TGB's single ingress rule, NetworkingNone for no spec.networking.
	Networking NetworkingSource
	// NodePort is the Service's NodePort (instance TGBs only).
	NodePort int32
	// Pods are the current pods, oldest first.
	Pods []PodPlan
	// NextPod is the ordinal the next pod's name takes.
	NextPod int
	// TargetGroupARN is set by Create (or AddTGB).
	TargetGroupARN string

	lock sync.Mutex // serialises mutations of this TGB
}

// Key is the TGB's (and its Service's) namespaced name.
func (t *TGBPlan) Key() types.NamespacedName {
	return types.NamespacedName{Namespace: t.Namespace, Name: t.Name}
}

// GateType is the readiness-gate condition type of the TGB.
func (t *TGBPlan) GateType() string { return tgbexpect.ReadinessGatePrefix + t.Name }

// PodPlan is one pod and its branch ENI (security groups for pods: the pod IP is the branch ENI's address).
type PodPlan struct {
	Name  string
	IP    string
	Node  int // index into FleetPlan.Nodes
	ENIID string
	// VLANID tags the branch ENI's traffic on its node's trunk.
	VLANID int
	// SecurityGroup indexes SecurityGroupNames.
	SecurityGroup int
}

const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func randName(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range n {
		b.WriteByte(nameAlphabet[rng.IntN(len(nameAlphabet))])
	}
	return b.String()
}

func randHex(rng *rand.Rand, n int) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for range n {
		b.WriteByte(hex[rng.IntN(16)])
	}
	return b.String()
}

// chosen marks k of n indexes, drawn without replacement.
func chosen(rng *rand.Rand, n, k int) []bool {
	marks := make([]bool, n)
	for _, i := range rng.Perm(n)[:k] {
		marks[i] = true
	}
	return marks
}

// Plan plans a fleet from spec (defaulted here) and rng. It panics on an invalid spec: call
// spec.WithDefaults().Validate() first. The result depends only on the spec and the RNG's state, so
// the same seed gives the same fleet: names, IPs, instance IDs, node assignment and target types.
func Plan(spec Spec, rng *rand.Rand) *FleetPlan {
	spec = spec.WithDefaults()
	if err := spec.Validate(); err != nil {
		panic(fmt.Sprintf("workload.Plan: invalid spec: %v", err))
	}
	f := &FleetPlan{
		Spec:  spec,
		rng:   rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64())),
		byKey: make(map[types.NamespacedName]*TGBPlan, spec.TGBs),
		vlans: map[int]int{},
	}
	for i := range spec.Namespaces {
		f.Namespaces = append(f.Namespaces, fmt.Sprintf("%s-%02d", spec.NamespacePrefix, i))
	}
	for i := range spec.SecurityGroups {
		f.SecurityGroupNames = append(f.SecurityGroupNames, fmt.Sprintf("%s-nodes-%d", spec.NamespacePrefix, i))
	}
	f.SecurityGroupNames = append(f.SecurityGroupNames, spec.NamespacePrefix+"-lb")

	vpc := netip.MustParsePrefix(spec.VPCCIDR)
	nodeNet := netip.MustParsePrefix(spec.NodeCIDR)
	f.nodeIPs = newIPAllocator(nodeNet, netip.Prefix{})
	f.podIPs = newIPAllocator(vpc, nodeNet)
	for range spec.Nodes {
		n, _ := f.planNode(rng) // Validate checked the range
		f.Nodes = append(f.Nodes, n)
	}

	nInstance := share(spec.TGBs, spec.InstanceShare)
	instance := chosen(rng, spec.TGBs, nInstance)
	networking := chosen(rng, spec.TGBs, share(spec.TGBs, spec.NetworkingShare))
	gated := chosen(rng, spec.TGBs-nInstance, share(spec.TGBs-nInstance, spec.ReadinessGateShare))
	for _, p := range rng.Perm(nodePortMax - nodePortMin + 1) {
		f.nodePorts = append(f.nodePorts, int32(nodePortMin+p))
	}
	ipIndex := 0
	for i := range spec.TGBs {
		kind := v1beta1.TargetTypeIP
		gate := false
		if instance[i] {
			kind = v1beta1.TargetTypeInstance
		} else {
			gate = gated[ipIndex]
			ipIndex++
		}
		src := NetworkingNone
		if networking[i] {
			src = NetworkingSecurityGroup
			if rng.IntN(2) == 1 {
				src = NetworkingIPBlock
			}
		}
		// Validate made sure the pod range is large enough for the initial fleet.
		t, _ := f.planTGB(rng, kind, gate, src)
		f.addTGB(t)
	}
	// Last, so that a fleet without Ingresses draws exactly what it drew before they existed.
	f.planIngresses(rng)
	f.planSpecCases(rng)
	return f
}

// planSpecCases marks the TGBs whose spec sets the fields, or whose Service the port layout, in
// which controllers' checkpoints could differ (targetGroupProtocol, iamRoleArnToAssume with or
// without assumeRoleExternalId, a Service port referred to by name beside a second one, an endpoint
// listed in two slices). It draws
// only for a share above 0, and after everything else, so that a fleet without them is planned
// exactly as before they existed.
func (f *FleetPlan) planSpecCases(rng *rand.Rand) {
	pick := func(among []*TGBPlan, fraction float64) []*TGBPlan {
		k := share(len(among), fraction)
		if k == 0 {
			return nil
		}
		var out []*TGBPlan
		for i, on := range chosen(rng, len(among), k) {
			if on {
				out = append(out, among[i])
			}
		}
		return out
	}
	for _, t := range pick(f.TGBs, f.Spec.TargetGroupProtocolShare) {
		t.TargetGroupProtocol = TargetGroupProtocol
	}
	for i, t := range pick(f.TGBs, f.Spec.AssumeRoleShare) {
		t.AssumeRole = true
		if i%2 == 1 {
			t.AssumeRoleExternalID = "restartsim-" + t.Name
		}
	}
	var ip []*TGBPlan
	for _, t := range f.TGBs {
		if t.TargetType == v1beta1.TargetTypeIP {
			ip = append(ip, t)
		}
	}
	for _, t := range pick(ip, f.Spec.NamedPortShare) {
		t.NamedPort = true
	}
	for _, t := range pick(ip, f.Spec.DuplicateEndpointShare) {
		t.DuplicateEndpoint = true
	}
}

// planNode plans the next node (not yet appended): the next two addresses of the node range (the
// node's and its trunk ENI's), zones round-robin by position, instance ID and security group drawn from
// rng. Callers hold f.mu or own f.
func (f *FleetPlan) planNode(rng *rand.Rand) (NodePlan, error) {
	ip, err := f.nodeIPs.Next()
	trunk, err2 := f.nodeIPs.Next()
	if err != nil || err2 != nil {
		return NodePlan{}, fmt.Errorf("workload: planning node %d: no address left in nodeCIDR %s", len(f.Nodes)+1, f.Spec.NodeCIDR)
	}
	zone := f.Spec.Zones[len(f.Nodes)%len(f.Spec.Zones)]
	return NodePlan{
		Name:          "ip-" + strings.ReplaceAll(ip, ".", "-") + "." + region(zone) + ".compute.internal",
		InstanceID:    "i-" + randHex(rng, 17),
		PrivateIP:     ip,
		TrunkIP:       trunk,
		Zone:          zone,
		SecurityGroup: rng.IntN(f.Spec.SecurityGroups),
	}, nil
}

// planTGB plans the next TGB with its pods, drawing from rng. Callers hold f.mu or own f.
func (f *FleetPlan) planTGB(rng *rand.Rand, kind v1beta1.TargetType, gate bool, src NetworkingSource) (*TGBPlan, error) {
	i := f.nextTGB
	name := fmt.Sprintf("svc-%05d-%s", i, randName(rng, 5))
	t := &TGBPlan{
		Namespace:       f.Namespaces[i%len(f.Namespaces)],
		Name:            name,
		TargetGroupName: "tg-" + name,
		TargetType:      kind,
		ReadinessGate:   gate && kind == v1beta1.TargetTypeIP,
		Networking:      src,
	}
	if kind == v1beta1.TargetTypeInstance {
		if len(f.nodePorts) == 0 {
			return nil, fmt.Errorf("planning TGB %s: no NodePort left in %d-%d", name, nodePortMin, nodePortMax)
		}
		t.NodePort, f.nodePorts = f.nodePorts[0], f.nodePorts[1:]
	}
	for range f.Spec.PodsPerService {
		p, err := f.planPod(rng, t)
		if err != nil {
			return nil, err
		}
		t.Pods = append(t.Pods, p)
	}
	f.nextTGB++
	return t, nil
}

// planPod plans the next pod of t (not yet appended).
func (f *FleetPlan) planPod(rng *rand.Rand, t *TGBPlan) (PodPlan, error) {
	return f.planServicePod(rng, t.Name, &t.NextPod)
}

// planServicePod plans the next pod of the Service named service, whose next ordinal *next takes (and
// advances).
func (f *FleetPlan) planServicePod(rng *rand.Rand, service string, next *int) (PodPlan, error) {
	ip, err := f.podIPs.Next()
	if err != nil {
		return PodPlan{}, err
	}
	p := PodPlan{
		Name:          fmt.Sprintf("%s-%d", service, *next),
		IP:            ip,
		Node:          f.placePod(rng),
		ENIID:         "eni-" + randHex(rng, 17),
		SecurityGroup: rng.IntN(f.Spec.SecurityGroups),
	}
	p.VLANID = f.nextVLAN(p.Node)
	*next++
	return p, nil
}

// maxVLANID is the highest VLAN ID a trunk ENI hands its branch ENIs (0 is never used).
const maxVLANID = 4094

// nextVLAN hands out node i's trunk VLAN IDs in turn, wrapping after maxVLANID: a real trunk carries far
// fewer branches at once, and the ID is only a label here. Callers hold f.mu or own f.
func (f *FleetPlan) nextVLAN(node int) int {
	v := f.vlans[node]%maxVLANID + 1
	f.vlans[node] = v
	return v
}

// placePod draws the node of a new pod among the Ready nodes (all of them, drawn as before any node
// turned NotReady, while none has). Callers hold f.mu or own f.
func (f *FleetPlan) placePod(rng *rand.Rand) int {
	if f.notReady == 0 {
		return rng.IntN(len(f.Nodes))
	}
	ready := make([]int, 0, len(f.Nodes)-f.notReady)
	for i, n := range f.Nodes {
		if !n.NotReady {
			ready = append(ready, i)
		}
	}
	return ready[rng.IntN(len(ready))]
}

func (f *FleetPlan) addTGB(t *TGBPlan) {
	f.TGBs = append(f.TGBs, t)
	f.byKey[t.Key()] = t
}

// region is the region of an availability zone (us-west-2a → us-west-2).
func region(zone string) string {
	if n := len(zone); n > 0 && zone[n-1] >= 'a' && zone[n-1] <= 'z' {
		return zone[:n-1]
	}
	return zone
}

package state

import "time"

// Tag is a key/value resource tag.
type Tag struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// VPC is a seeded or default VPC.
type VPC struct {
	ID        string   `json:"id"`
	CIDRs     []string `json:"cidrs"` // first is the primary CidrBlock
	IsDefault bool     `json:"isDefault,omitempty"`
	Tags      []Tag    `json:"tags,omitempty"`
}

// Instance is a seeded EC2 instance. Seeding also creates its primary ENI (PrimaryENIID, derived when empty).
type Instance struct {
	ID               string   `json:"id"`
	PrivateIP        string   `json:"privateIp"`
	SubnetID         string   `json:"subnetId,omitempty"`
	AvailabilityZone string   `json:"availabilityZone,omitempty"`
	VPCID            string   `json:"vpcId,omitempty"` // default: the default VPC
	SecurityGroupIDs []string `json:"securityGroupIds,omitempty"`
	PrimaryENIID     string   `json:"primaryEniId,omitempty"`
	State            string   `json:"state,omitempty"` // default "running"
	Tags             []Tag    `json:"tags,omitempty"`
	// InstanceType names a type of the catalog (fakeaws/internal/catalog); empty for a seeded instance
	// that predates the capacity API.
	InstanceType string `json:"instanceType,omitempty"`
	ImageID      string `json:"imageId,omitempty"`
	// LaunchTime is when the instance was launched, in scenario time.
	LaunchTime time.Time `json:"launchTime,omitzero"`
	// Lifecycle is "spot" for a spot instance, empty for on-demand.
	Lifecycle string `json:"lifecycle,omitempty"`
	// LaunchTemplateID is the template the instance was launched from, if any.
	LaunchTemplateID string `json:"launchTemplateId,omitempty"`
	// UserData is the base64 user data the instance booted with (its own or its launch template's): what a
	// node's kubelet reads its labels, taints and cluster from.
	UserData string `json:"userData,omitempty"`
	// IAMInstanceProfileARN is the instance profile the instance was launched with, if any.
	IAMInstanceProfileARN string `json:"iamInstanceProfileArn,omitempty"`
	// RunningAt is when a pending instance turns running; TerminatedAt when a shutting-down one turns
	// terminated (scenario time). Zero for a seeded instance, whose state stays as seeded.
	RunningAt    time.Time `json:"runningAt,omitzero"`
	TerminatedAt time.Time `json:"terminatedAt,omitzero"`
	// StateReason is EC2's StateReason code of a stopped or terminated instance ("Client.UserInitiatedShutdown").
	StateReason string `json:"stateReason,omitempty"`
}

// ENI is a seeded network interface.
type ENI struct {
	ID               string   `json:"id"`
	PrivateIPs       []string `json:"privateIps"` // first is primary, the rest secondary (a VPC CNI's pod IPs)
	SecurityGroupIDs []string `json:"securityGroupIds,omitempty"`
	SubnetID         string   `json:"subnetId,omitempty"`
	AvailabilityZone string   `json:"availabilityZone,omitempty"`
	VPCID            string   `json:"vpcId,omitempty"` // default: the default VPC
	// InstanceID attaches the ENI to an existing instance at DeviceIndex; 0 is the primary ENI's, which
	// SeedInstance creates.
	InstanceID  string `json:"instanceId,omitempty"`
	DeviceIndex int32  `json:"deviceIndex,omitempty"`
	// InterfaceType is InterfaceTypeInterface (default), InterfaceTypeTrunk or InterfaceTypeBranch.
	InterfaceType string `json:"interfaceType,omitempty"`
	// MACAddress defaults to one derived from the ID.
	MACAddress  string `json:"macAddress,omitempty"`
	Description string `json:"description,omitempty"`
	Tags        []Tag  `json:"tags,omitempty"`
}

// ENI interface types. Under security groups for pods, the VPC resource controller attaches one trunk ENI
// to a node and gives each pod a branch ENI, associated with the trunk by a VLAN and never attached itself.
const (
	InterfaceTypeInterface = "interface"
	InterfaceTypeTrunk     = "trunk"
	InterfaceTypeBranch    = "branch"
)

// Rule is one security group ingress (or egress) rule with a single source, like EC2's SecurityGroupRule.
// Protocol is normalised: "tcp", "udp", "icmp", "icmpv6", "-1" (all) or a protocol number.
type Rule struct {
	ID            string `json:"id,omitempty"`
	Protocol      string `json:"protocol"`
	FromPort      int32  `json:"fromPort"`
	ToPort        int32  `json:"toPort"`
	CIDR          string `json:"cidr,omitempty"`
	CIDRv6        string `json:"cidrv6,omitempty"`
	SourceGroupID string `json:"sourceGroupId,omitempty"`
	PrefixListID  string `json:"prefixListId,omitempty"`
	Description   string `json:"description,omitempty"`
}

// SameAs reports whether two rules grant the same access (ID and description ignored).
func (r Rule) SameAs(o Rule) bool {
	if r.Protocol != o.Protocol || r.CIDR != o.CIDR || r.CIDRv6 != o.CIDRv6 || r.SourceGroupID != o.SourceGroupID || r.PrefixListID != o.PrefixListID {
		return false
	}
	if r.Protocol == "-1" {
		return true
	}
	return r.FromPort == o.FromPort && r.ToPort == o.ToPort
}

// Covers reports whether r grants at least the access o grants: the same source, and r's protocol
// and port range include o's (a controller may merge rules of one source into a port range).
func (r Rule) Covers(o Rule) bool {
	if r.CIDR != o.CIDR || r.CIDRv6 != o.CIDRv6 || r.SourceGroupID != o.SourceGroupID || r.PrefixListID != o.PrefixListID {
		return false
	}
	switch {
	case r.Protocol == "-1":
		return true
	case r.Protocol != o.Protocol:
		return false
	case r.Protocol == "icmp" || r.Protocol == "icmpv6":
		return r.SameAs(o) // type and code, not a range
	}
	return r.FromPort <= o.FromPort && o.ToPort <= r.ToPort
}

// SecurityGroup is an EC2 security group.
type SecurityGroup struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	VPCID       string `json:"vpcId"`
	OwnerID     string `json:"ownerId"`
	Ingress     []Rule `json:"ingress"`
	Egress      []Rule `json:"egress"`
	Tags        []Tag  `json:"tags,omitempty"`
}

// HealthCheck holds a target group's health check settings.
type HealthCheck struct {
	Enabled            bool   `json:"enabled"`
	Protocol           string `json:"protocol"`
	Port               string `json:"port"`
	Path               string `json:"path,omitempty"`
	IntervalSeconds    int32  `json:"intervalSeconds"`
	TimeoutSeconds     int32  `json:"timeoutSeconds"`
	HealthyThreshold   int32  `json:"healthyThreshold"`
	UnhealthyThreshold int32  `json:"unhealthyThreshold"`
	Matcher            string `json:"matcher,omitempty"`
}

// TargetGroup is an ELBv2 target group.
type TargetGroup struct {
	ARN      string `json:"arn"`
	Name     string `json:"name"`
	Protocol string `json:"protocol,omitempty"`
	// ProtocolVersion is HTTP1, HTTP2 or GRPC for an HTTP or HTTPS group, else empty.
	ProtocolVersion string      `json:"protocolVersion,omitempty"`
	Port            int32       `json:"port,omitempty"`
	VPCID           string      `json:"vpcId,omitempty"`
	TargetType      string      `json:"targetType"`
	IPAddressType   string      `json:"ipAddressType,omitempty"`
	HealthCheck     HealthCheck `json:"healthCheck"`
	Tags            []Tag       `json:"tags,omitempty"`
	CreatedAt       time.Time   `json:"createdAt"`
	// Attributes are the attributes set by ModifyTargetGroupAttributes; defaults are implied.
	Attributes map[string]string `json:"attributes,omitempty"`
	// LoadBalancerARNs are the load balancers whose listeners or rules forward to the group (derived).
	LoadBalancerARNs []string `json:"loadBalancerArns,omitempty"`
}

// Target identifies a registered target.
type Target struct {
	ID               string `json:"id"`
	Port             int32  `json:"port"`
	AvailabilityZone string `json:"availabilityZone,omitempty"`
}

// Target health states and reasons, as ELBv2 reports them.
const (
	HealthInitial  = "initial"
	HealthHealthy  = "healthy"
	HealthDraining = "draining"
	HealthUnused   = "unused"

	ReasonRegistrationInProgress   = "Elb.RegistrationInProgress"
	ReasonDeregistrationInProgress = "Target.DeregistrationInProgress"
	ReasonNotRegistered            = "Target.NotRegistered"
	ReasonNotInUse                 = "Target.NotInUse"
)

// TargetHealth is a target with its health at a point in scenario time.
type TargetHealth struct {
	Target         Target     `json:"target"`
	State          string     `json:"state"`
	Reason         string     `json:"reason,omitempty"`
	Description    string     `json:"description,omitempty"`
	RegisteredAt   time.Time  `json:"registeredAt"`
	HealthyAt      time.Time  `json:"healthyAt"`
	DeregisteredAt *time.Time `json:"deregisteredAt,omitempty"`
}

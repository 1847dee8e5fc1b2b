package fakeaws

import (
	"slices"

	"github.com/restartsim/restartsim/fakeaws/internal/catalog"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
	"github.com/restartsim/restartsim/fakeaws/internal/throttle"
)

// State types, shared with the internal store (aliases, so values pass through without copying field by field).
type (
	// Tag is a resource tag.
	Tag = state.Tag
	// VPC is a VPC; CIDRs[0] is the primary block.
	VPC = state.VPC
	// Instance is an EC2 instance; seeding creates its primary ENI.
	Instance = state.Instance
	// InstanceType is an EC2 instance type of the catalog DescribeInstanceTypes answers from.
	InstanceType = catalog.InstanceType
	// ENI is a network interface.
	ENI = state.ENI
	// Rule is one single-source security group rule (Protocol "tcp"/"udp"/"icmp"/"-1"...).
	Rule = state.Rule
	// SecurityGroup is a security group with its ingress and egress rules.
	SecurityGroup = state.SecurityGroup
	// TargetGroup is an ELBv2 target group.
	TargetGroup = state.TargetGroup
	// HealthCheck holds a target group's health check settings.
	HealthCheck = state.HealthCheck
	// Target is a target: ID (instance ID or IP) and port.
	Target = state.Target
	// TargetHealth is a target's health at the time of the query: State is "initial", "healthy" or "draining".
	TargetHealth = state.TargetHealth
	// Subnet is a VPC subnet; the default VPC has one per zone a, b and c, tagged for load balancers.
	Subnet = state.Subnet
	// LoadBalancer is an ELBv2 application or network load balancer.
	LoadBalancer = state.LoadBalancer
	// Listener is a load balancer listener.
	Listener = state.Listener
	// ListenerRule is a listener rule (IsDefault for the listener's default rule).
	ListenerRule = state.ListenerRule
	// RuleCondition is one condition of a listener rule.
	RuleCondition = state.Condition
	// Action is a listener's default action or a rule's action.
	Action = state.Action
	// OIDCConfig is an authenticate-oidc action's configuration, client secret included (which no
	// Describe returns).
	OIDCConfig = state.OIDCConfig
	// BucketState is a token bucket's fill level.
	BucketState = throttle.BucketState
)

// Load balancer states and the subnet tags by which controllers discover subnets for each scheme.
const (
	LoadBalancerProvisioning = state.LBStateProvisioning
	LoadBalancerActive       = state.LBStateActive
	TagRoleELB               = state.TagRoleELB
	TagRoleInternalELB       = state.TagRoleInternalELB
)

// Target health states.
const (
	HealthInitial  = state.HealthInitial
	HealthHealthy  = state.HealthHealthy
	HealthDraining = state.HealthDraining
)

// LookupInstanceType returns the catalog's figures of an instance type.
func LookupInstanceType(name string) (InstanceType, bool) { return catalog.Lookup(name) }

// InstanceTypes returns the catalog, sorted by name.
func InstanceTypes() []InstanceType { return catalog.All() }

// Route53RecordTypes are the record types Route53 accepts, sorted.
func Route53RecordTypes() []string { return slices.Clone(state.RecordTypes) }

package fakeaws

import (
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
	// BucketState is a token bucket's fill level.
	BucketState = throttle.BucketState
)

// Target health states.
const (
	HealthInitial  = state.HealthInitial
	HealthHealthy  = state.HealthHealthy
	HealthDraining = state.HealthDraining
)

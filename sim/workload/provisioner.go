package workload

import (
	"context"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Provisioner creates the AWS side of the fleet. The sim core implements it with aws-sdk-go-v2 clients
// and the fakeaws admin API; every method must be safe for concurrent use.
type Provisioner interface {
	// CreateTargetGroup creates a target group named name (≤ 32 characters) of the given target type,
	// port and VPC ("" for the default VPC) and returns its ARN.
	CreateTargetGroup(ctx context.Context, name string, targetType v1beta1.TargetType, port int32, vpcID string) (arn string, err error)
	// CreateSecurityGroup creates a security group in the VPC ("" for the default VPC) and returns its ID.
	CreateSecurityGroup(ctx context.Context, name, vpcID string) (groupID string, err error)
	// SeedInstance makes an EC2 instance (a node) exist with the private IP and security groups.
	SeedInstance(ctx context.Context, instanceID, privateIP string, securityGroupIDs []string) error
	// SeedENI makes a network interface (a pod's) exist with the private IPs and security groups.
	SeedENI(ctx context.Context, eniID string, privateIPs, securityGroupIDs []string) error
}

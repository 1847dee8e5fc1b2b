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
	// TagResources adds tags to existing EC2 resources (security groups here), as EC2 CreateTags does.
	TagResources(ctx context.Context, ids []string, tags map[string]string) error
	// SeedInstance makes an EC2 instance (a node) exist with the private IP and security groups, and
	// its primary ENI (device index 0).
	SeedInstance(ctx context.Context, instanceID, privateIP string, securityGroupIDs []string) error
	// SeedNetworkInterface makes a network interface exist as described: a node's trunk ENI or a pod's
	// branch ENI.
	SeedNetworkInterface(ctx context.Context, eni NetworkInterface) error
	// SeedCertificate makes an issued ACM certificate for domain exist under arn, as a certificate the
	// account held before the run; seeding one that exists for the same domain is not an error.
	SeedCertificate(ctx context.Context, arn, domain string) error
}

// NetworkInterface is an ENI the fleet seeds, in EC2's terms.
type NetworkInterface struct {
	ID string
	// PrivateIPs: the first is the primary address.
	PrivateIPs       []string
	SecurityGroupIDs []string
	// InterfaceType is "trunk" or "branch" ("" for a plain interface).
	InterfaceType    string
	AvailabilityZone string
	// InstanceID and DeviceIndex attach the ENI to an instance (a trunk); a branch ENI is never attached.
	InstanceID  string
	DeviceIndex int32
	MACAddress  string
	Description string
	Tags        map[string]string
}

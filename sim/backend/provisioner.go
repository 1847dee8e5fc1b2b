package backend

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/tgattach"
	"github.com/restartsim/restartsim/sim/workload"
)

// Provisioner implements workload.Provisioner over aws-sdk-go-v2 (target and security groups, as a
// user would create them) and the fakeaws admin API (instances and ENIs, which only exist by seeding).
type Provisioner struct {
	elb     *elbv2.Client
	ec2     *ec2.Client
	attach  *tgattach.Attacher
	backend Backend
	vpcOnce sync.Once
	vpc     string
	vpcErr  error
}

// NewProvisioner provisions through b with the run's credentials c.
func NewProvisioner(b Backend, c Creds) *Provisioner {
	cfg := SDKConfig(b.URL(), c, 30)
	elb, ec := elbv2.NewFromConfig(cfg), ec2.NewFromConfig(cfg)
	return &Provisioner{elb: elb, ec2: ec, attach: tgattach.New(elb, ec), backend: b}
}

func (p *Provisioner) vpcID(id string) (string, error) {
	if id != "" {
		return id, nil
	}
	p.vpcOnce.Do(func() { p.vpc, p.vpcErr = p.backend.DefaultVPCID() })
	return p.vpc, p.vpcErr
}

// CreateTargetGroup creates the group and puts it behind a fleet load balancer, as LBC's groups are: ELBv2
// reports the targets of a group no load balancer uses "unused", and never healthy.
func (p *Provisioner) CreateTargetGroup(ctx context.Context, name string, tt v1beta1.TargetType, port int32, vpcID string) (string, error) {
	vpc, err := p.vpcID(vpcID)
	if err != nil {
		return "", err
	}
	out, err := p.elb.CreateTargetGroup(ctx, &elbv2.CreateTargetGroupInput{
		Name: aws.String(name), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(port),
		VpcId: aws.String(vpc), TargetType: elbtypes.TargetTypeEnum(tt),
	})
	if err != nil {
		return "", fmt.Errorf("CreateTargetGroup %s: %w", name, err)
	}
	if len(out.TargetGroups) == 0 {
		return "", fmt.Errorf("CreateTargetGroup %s: empty response", name)
	}
	if err := p.attach.Attach(ctx, out.TargetGroups[0]); err != nil {
		return "", err
	}
	return aws.ToString(out.TargetGroups[0].TargetGroupArn), nil
}

func (p *Provisioner) CreateSecurityGroup(ctx context.Context, name, vpcID string) (string, error) {
	vpc, err := p.vpcID(vpcID)
	if err != nil {
		return "", err
	}
	out, err := p.ec2.CreateSecurityGroup(ctx, &ec2.CreateSecurityGroupInput{
		GroupName: aws.String(name), Description: aws.String("restartsim " + name), VpcId: aws.String(vpc),
		TagSpecifications: []ec2types.TagSpecification{{ResourceType: ec2types.ResourceTypeSecurityGroup,
			Tags: []ec2types.Tag{{Key: aws.String("restartsim.io/run"), Value: aws.String("1")}}}},
	})
	if err != nil {
		return "", fmt.Errorf("CreateSecurityGroup %s: %w", name, err)
	}
	return aws.ToString(out.GroupId), nil
}

func (p *Provisioner) SeedInstance(_ context.Context, id, ip string, sgs []string) error {
	return p.backend.SeedInstance(fakeaws.Instance{ID: id, PrivateIP: ip, SecurityGroupIDs: sgs})
}

// TagResources tags through EC2 CreateTags, as a user tags a node group's security groups.
func (p *Provisioner) TagResources(ctx context.Context, ids []string, tags map[string]string) error {
	in := &ec2.CreateTagsInput{Resources: ids}
	for _, k := range slices.Sorted(maps.Keys(tags)) {
		in.Tags = append(in.Tags, ec2types.Tag{Key: aws.String(k), Value: aws.String(tags[k])})
	}
	if _, err := p.ec2.CreateTags(ctx, in); err != nil {
		return fmt.Errorf("CreateTags %v: %w", ids, err)
	}
	return nil
}

// SeedNetworkInterface seeds through the admin API: trunk and branch ENIs are the VPC resource
// controller's, not something a user creates.
func (p *Provisioner) SeedNetworkInterface(_ context.Context, n workload.NetworkInterface) error {
	e := fakeaws.ENI{ID: n.ID, PrivateIPs: n.PrivateIPs, SecurityGroupIDs: n.SecurityGroupIDs, InterfaceType: n.InterfaceType,
		AvailabilityZone: n.AvailabilityZone, InstanceID: n.InstanceID, DeviceIndex: n.DeviceIndex, MACAddress: n.MACAddress,
		Description: n.Description}
	for _, k := range slices.Sorted(maps.Keys(n.Tags)) {
		e.Tags = append(e.Tags, fakeaws.Tag{Key: k, Value: n.Tags[k]})
	}
	return p.backend.SeedENI(e)
}

// SeedCertificate seeds an issued ACM certificate through the admin API: the fleet's certificates stand for
// ones the account held before the run.
func (p *Provisioner) SeedCertificate(_ context.Context, arn, domain string) error {
	return p.backend.SeedCertificate(fakeaws.CertificateSeed{ARN: arn, Domain: domain})
}

// SeedENI seeds a plain, unattached network interface.
func (p *Provisioner) SeedENI(ctx context.Context, id string, ips, sgs []string) error {
	return p.SeedNetworkInterface(ctx, workload.NetworkInterface{ID: id, PrivateIPs: ips, SecurityGroupIDs: sgs})
}

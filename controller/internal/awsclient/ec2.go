package awsclient

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/controller/internal/ttlcache"
)

// EC2API is the part of the EC2 client the controller uses.
type EC2API interface {
	DescribeInstances(context.Context, *ec2.DescribeInstancesInput, ...func(*ec2.Options)) (*ec2.DescribeInstancesOutput, error)
	DescribeNetworkInterfaces(context.Context, *ec2.DescribeNetworkInterfacesInput, ...func(*ec2.Options)) (*ec2.DescribeNetworkInterfacesOutput, error)
	DescribeSecurityGroups(context.Context, *ec2.DescribeSecurityGroupsInput, ...func(*ec2.Options)) (*ec2.DescribeSecurityGroupsOutput, error)
	AuthorizeSecurityGroupIngress(context.Context, *ec2.AuthorizeSecurityGroupIngressInput, ...func(*ec2.Options)) (*ec2.AuthorizeSecurityGroupIngressOutput, error)
	RevokeSecurityGroupIngress(context.Context, *ec2.RevokeSecurityGroupIngressInput, ...func(*ec2.Options)) (*ec2.RevokeSecurityGroupIngressOutput, error)
	DescribeVpcs(context.Context, *ec2.DescribeVpcsInput, ...func(*ec2.Options)) (*ec2.DescribeVpcsOutput, error)
}

// SecurityGroup is a security group's tags and ingress rules.
type SecurityGroup struct {
	ID      string
	Tags    map[string]string
	Ingress []ec2types.IpPermission
}

// EC2 wraps EC2 with caches for ENI/instance security groups, security groups and VPC CIDRs.
type EC2 struct {
	api       EC2API
	endpoints *ttlcache.Cache[string, []string] // pod IP or instance ID → security group IDs
	groups    *ttlcache.Cache[string, SecurityGroup]
	vpcs      *ttlcache.Cache[string, []string]
}

// NewEC2 wraps api; sgTTL is the TTL of every cache, clk their time source.
func NewEC2(api EC2API, sgTTL time.Duration, clk clock.PassiveClock) *EC2 {
	return &EC2{
		api:       api,
		endpoints: ttlcache.New[string, []string](sgTTL, clk),
		groups:    ttlcache.New[string, SecurityGroup](sgTTL, clk),
		vpcs:      ttlcache.New[string, []string](sgTTL, clk),
	}
}

// PodSecurityGroups maps pod IPs to the security groups of their ENIs (DescribeNetworkInterfaces).
// IPs without an ENI are missing from the result.
func (e *EC2) PodSecurityGroups(ctx context.Context, ips []string) (map[string][]string, error) {
	out, missing := e.cached(ips)
	for _, chunk := range chunkStrings(missing, 200) {
		resp, err := e.api.DescribeNetworkInterfaces(ctx, &ec2.DescribeNetworkInterfacesInput{
			Filters: []ec2types.Filter{{Name: aws.String("addresses.private-ip-address"), Values: chunk}},
		})
		if err != nil {
			return nil, fmt.Errorf("DescribeNetworkInterfaces: %w", err)
		}
		for _, eni := range resp.NetworkInterfaces {
			groups := groupIDs(eni.Groups)
			for _, a := range eni.PrivateIpAddresses {
				ip := aws.ToString(a.PrivateIpAddress)
				out[ip] = groups
				e.endpoints.Set(ip, groups)
			}
			if ip := aws.ToString(eni.PrivateIpAddress); ip != "" {
				out[ip] = groups
				e.endpoints.Set(ip, groups)
			}
		}
	}
	return out, nil
}

// InstanceSecurityGroups maps instance IDs to the security groups of their primary ENI (DescribeInstances).
func (e *EC2) InstanceSecurityGroups(ctx context.Context, ids []string) (map[string][]string, error) {
	out, missing := e.cached(ids)
	for _, chunk := range chunkStrings(missing, 200) {
		resp, err := e.api.DescribeInstances(ctx, &ec2.DescribeInstancesInput{InstanceIds: chunk})
		if err != nil {
			return nil, fmt.Errorf("DescribeInstances: %w", err)
		}
		for _, res := range resp.Reservations {
			for _, inst := range res.Instances {
				var groups []string
				for _, eni := range inst.NetworkInterfaces {
					if eni.Attachment != nil && aws.ToInt32(eni.Attachment.DeviceIndex) == 0 {
						groups = groupIDs(eni.Groups)
					}
				}
				if groups == nil {
					groups = groupIDs(inst.SecurityGroups)
				}
				id := aws.ToString(inst.InstanceId)
				out[id] = groups
				e.endpoints.Set(id, groups)
			}
		}
	}
	return out, nil
}

func (e *EC2) cached(keys []string) (map[string][]string, []string) {
	out := map[string][]string{}
	var missing []string
	for _, k := range keys {
		if g, ok := e.endpoints.Get(k); ok {
			out[k] = g
		} else {
			missing = append(missing, k)
		}
	}
	return out, missing
}

// SecurityGroups describes the groups (cached).
func (e *EC2) SecurityGroups(ctx context.Context, ids []string) (map[string]SecurityGroup, error) {
	out := map[string]SecurityGroup{}
	var missing []string
	for _, id := range ids {
		if g, ok := e.groups.Get(id); ok {
			out[id] = g
		} else {
			missing = append(missing, id)
		}
	}
	if len(missing) == 0 {
		return out, nil
	}
	resp, err := e.api.DescribeSecurityGroups(ctx, &ec2.DescribeSecurityGroupsInput{GroupIds: missing})
	if err != nil {
		return nil, fmt.Errorf("DescribeSecurityGroups: %w", err)
	}
	for _, g := range resp.SecurityGroups {
		sg := SecurityGroup{ID: aws.ToString(g.GroupId), Tags: map[string]string{}, Ingress: g.IpPermissions}
		for _, t := range g.Tags {
			sg.Tags[aws.ToString(t.Key)] = aws.ToString(t.Value)
		}
		out[sg.ID] = sg
		e.groups.Set(sg.ID, sg)
	}
	return out, nil
}

// FreshSecurityGroups is SecurityGroups reusing cached groups only when younger than maxAge, so
// that many drift checks of one group within maxAge cost one DescribeSecurityGroups.
func (e *EC2) FreshSecurityGroups(ctx context.Context, ids []string, maxAge time.Duration) (map[string]SecurityGroup, error) {
	for _, id := range ids {
		if _, ok := e.groups.GetFresh(id, maxAge); !ok {
			e.groups.Delete(id)
		}
	}
	return e.SecurityGroups(ctx, ids)
}

// InvalidateSecurityGroup drops a group from the cache (after changing its rules).
func (e *EC2) InvalidateSecurityGroup(id string) { e.groups.Delete(id) }

// Authorize adds ingress rules to a group; rules that already exist are not an error.
func (e *EC2) Authorize(ctx context.Context, sgID string, perms []ec2types.IpPermission) error {
	defer e.InvalidateSecurityGroup(sgID)
	_, err := e.api.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(sgID), IpPermissions: perms})
	if err != nil && !IsDuplicatePermission(err) {
		return fmt.Errorf("AuthorizeSecurityGroupIngress %s: %w", sgID, err)
	}
	return nil
}

// Revoke removes ingress rules from a group; rules already gone are not an error.
func (e *EC2) Revoke(ctx context.Context, sgID string, perms []ec2types.IpPermission) error {
	defer e.InvalidateSecurityGroup(sgID)
	_, err := e.api.RevokeSecurityGroupIngress(ctx, &ec2.RevokeSecurityGroupIngressInput{GroupId: aws.String(sgID), IpPermissions: perms})
	if err != nil && !IsPermissionNotFound(err) {
		return fmt.Errorf("RevokeSecurityGroupIngress %s: %w", sgID, err)
	}
	return nil
}

// VPCCIDRs returns the IPv4 and IPv6 CIDRs of a VPC (cached).
func (e *EC2) VPCCIDRs(ctx context.Context, vpcID string) ([]string, error) {
	if c, ok := e.vpcs.Get(vpcID); ok {
		return c, nil
	}
	resp, err := e.api.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{VpcIds: []string{vpcID}})
	if err != nil {
		return nil, fmt.Errorf("DescribeVpcs %s: %w", vpcID, err)
	}
	var cidrs []string
	for _, v := range resp.Vpcs {
		if c := aws.ToString(v.CidrBlock); c != "" {
			cidrs = append(cidrs, c)
		}
		for _, a := range v.CidrBlockAssociationSet {
			if c := aws.ToString(a.CidrBlock); c != "" && !contains(cidrs, c) {
				cidrs = append(cidrs, c)
			}
		}
		for _, a := range v.Ipv6CidrBlockAssociationSet {
			if c := aws.ToString(a.Ipv6CidrBlock); c != "" {
				cidrs = append(cidrs, c)
			}
		}
	}
	e.vpcs.Set(vpcID, cidrs)
	return cidrs, nil
}

func groupIDs(gs []ec2types.GroupIdentifier) []string {
	out := make([]string, 0, len(gs))
	for _, g := range gs {
		out = append(out, aws.ToString(g.GroupId))
	}
	sort.Strings(out)
	return out
}

func chunkStrings(s []string, n int) [][]string {
	var out [][]string
	for len(s) > 0 {
		k := min(n, len(s))
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

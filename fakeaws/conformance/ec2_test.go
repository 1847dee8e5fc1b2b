package conformance_test

import (
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// API reference pages the cases cite.
const (
	refCreateSG     = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_CreateSecurityGroup.html"
	refSG           = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_SecurityGroup.html"
	refSGRule       = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_SecurityGroupRule.html"
	refSubnet       = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_Subnet.html"
	refEC2Errors    = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html"
	refARNFormat    = "https://docs.aws.amazon.com/service-authorization/latest/reference/list_amazonec2.html#amazonec2-resources-for-iam-policies"
	refDescribeVpcs = "https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeVpcs.html"
)

// ec2Case is one documented answer, as elbCase is for ELBv2.
type ec2Case struct {
	name     string
	source   string
	setup    func(f *ec2Fixture)
	input    func(f *ec2Fixture) any // an *ec2.<Operation>Input
	wantCode string
	want     func(t *testing.T, f *ec2Fixture, out any)
}

type ec2Fixture struct {
	t   *testing.T
	ctx context.Context
	srv *fakeaws.Server
	c   *ec2.Client
	ids map[string]string
}

// sg creates a security group in the default VPC and records its ID under name.
func (f *ec2Fixture) sg(name string) {
	f.t.Helper()
	out, err := f.c.CreateSecurityGroup(f.ctx, &ec2.CreateSecurityGroupInput{GroupName: aws.String(name),
		Description: aws.String("conformance " + name), VpcId: aws.String(f.srv.DefaultVPCID())})
	if err != nil {
		f.t.Fatalf("setup CreateSecurityGroup %s: %v", name, err)
	}
	f.ids[name] = aws.ToString(out.GroupId)
}

func ec2Call(ctx context.Context, c *ec2.Client, in any) (any, error) {
	switch in := in.(type) {
	case *ec2.CreateSecurityGroupInput:
		return c.CreateSecurityGroup(ctx, in)
	case *ec2.DescribeSecurityGroupsInput:
		return c.DescribeSecurityGroups(ctx, in)
	case *ec2.DeleteSecurityGroupInput:
		return c.DeleteSecurityGroup(ctx, in)
	case *ec2.AuthorizeSecurityGroupIngressInput:
		return c.AuthorizeSecurityGroupIngress(ctx, in)
	case *ec2.DescribeSubnetsInput:
		return c.DescribeSubnets(ctx, in)
	case *ec2.DescribeVpcsInput:
		return c.DescribeVpcs(ctx, in)
	}
	return nil, fmt.Errorf("no EC2 operation takes %T", in)
}

func TestEC2Conformance(t *testing.T) {
	for _, c := range ec2Cases() {
		t.Run(c.name, func(t *testing.T) {
			srv, cfg := startServer(t)
			f := &ec2Fixture{t: t, ctx: context.Background(), srv: srv, c: ec2.NewFromConfig(cfg), ids: map[string]string{}}
			if c.setup != nil {
				c.setup(f)
			}
			in := c.input(f)
			out, err := ec2Call(f.ctx, f.c, in)
			wantAnswer(t, in, err, c.wantCode, c.source)
			if c.want != nil {
				c.want(t, f, out)
			}
		})
	}
}

// wantARN checks that arn is the regional ARN of an EC2 resource of kind with the id.
func wantARN(t *testing.T, arn, kind, id string) {
	t.Helper()
	want := regexp.MustCompile(`^arn:aws:ec2:` + testRegion + `:` + testAccount + `:` + kind + `/` + regexp.QuoteMeta(id) + `$`)
	if !want.MatchString(arn) {
		t.Errorf("ARN %q, want arn:aws:ec2:%s:%s:%s/%s", arn, testRegion, testAccount, kind, id)
	}
}

func ingress(group, cidr string) *ec2.AuthorizeSecurityGroupIngressInput {
	return &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(group), IpPermissions: []ec2types.IpPermission{{
		IpProtocol: aws.String("tcp"), FromPort: aws.Int32(443), ToPort: aws.Int32(443),
		IpRanges: []ec2types.IpRange{{CidrIp: aws.String(cidr)}}}}}
}

func ec2Cases() []ec2Case {
	return []ec2Case{{
		name: "CreateSecurityGroup returns a regional ARN", source: refCreateSG + " " + refARNFormat,
		input: func(f *ec2Fixture) any {
			return &ec2.CreateSecurityGroupInput{GroupName: aws.String("web"), Description: aws.String("web"), VpcId: aws.String(f.srv.DefaultVPCID())}
		},
		want: func(t *testing.T, _ *ec2Fixture, out any) {
			o := out.(*ec2.CreateSecurityGroupOutput)
			wantARN(t, aws.ToString(o.SecurityGroupArn), "security-group", aws.ToString(o.GroupId))
		},
	}, {
		name: "DescribeSecurityGroups lists the regional ARN", source: refSG,
		setup: func(f *ec2Fixture) { f.sg("web") },
		input: func(f *ec2Fixture) any { return &ec2.DescribeSecurityGroupsInput{GroupIds: []string{f.ids["web"]}} },
		want: func(t *testing.T, f *ec2Fixture, out any) {
			g := out.(*ec2.DescribeSecurityGroupsOutput).SecurityGroups
			if len(g) != 1 {
				t.Fatalf("%d groups, want 1", len(g))
			}
			wantARN(t, aws.ToString(g[0].SecurityGroupArn), "security-group", f.ids["web"])
		},
	}, {
		name: "AuthorizeSecurityGroupIngress returns rules with regional ARNs", source: refSGRule,
		setup: func(f *ec2Fixture) { f.sg("web") },
		input: func(f *ec2Fixture) any { return ingress(f.ids["web"], "10.1.0.0/16") },
		want: func(t *testing.T, _ *ec2Fixture, out any) {
			rs := out.(*ec2.AuthorizeSecurityGroupIngressOutput).SecurityGroupRules
			if len(rs) != 1 {
				t.Fatalf("%d rules, want 1", len(rs))
			}
			wantARN(t, aws.ToString(rs[0].SecurityGroupRuleArn), "security-group-rule", aws.ToString(rs[0].SecurityGroupRuleId))
		},
	}, {
		name: "DescribeSubnets lists regional subnet ARNs", source: refSubnet,
		input: func(f *ec2Fixture) any { return &ec2.DescribeSubnetsInput{} },
		want: func(t *testing.T, _ *ec2Fixture, out any) {
			sns := out.(*ec2.DescribeSubnetsOutput).Subnets
			if len(sns) == 0 {
				t.Fatal("no subnets in a fresh account's default VPC")
			}
			for _, sn := range sns {
				wantARN(t, aws.ToString(sn.SubnetArn), "subnet", aws.ToString(sn.SubnetId))
			}
		},
	}, {
		name: "DescribeVpcs lists the default VPC", source: refDescribeVpcs,
		input: func(*ec2Fixture) any { return &ec2.DescribeVpcsInput{} },
		want: func(t *testing.T, f *ec2Fixture, out any) {
			vs := out.(*ec2.DescribeVpcsOutput).Vpcs
			if len(vs) != 1 || aws.ToString(vs[0].VpcId) != f.srv.DefaultVPCID() || !aws.ToBool(vs[0].IsDefault) {
				t.Errorf("VPCs %+v, want the one default VPC %s", vs, f.srv.DefaultVPCID())
			}
		},
	}, {
		name: "DescribeSecurityGroups of an unknown group is InvalidGroup.NotFound", source: refEC2Errors,
		input: func(*ec2Fixture) any {
			return &ec2.DescribeSecurityGroupsInput{GroupIds: []string{"sg-0123456789abcdef0"}}
		},
		wantCode: "InvalidGroup.NotFound",
	}, {
		name: "CreateSecurityGroup with a name the VPC has is InvalidGroup.Duplicate", source: refEC2Errors,
		setup: func(f *ec2Fixture) { f.sg("web") },
		input: func(f *ec2Fixture) any {
			return &ec2.CreateSecurityGroupInput{GroupName: aws.String("web"), Description: aws.String("again"), VpcId: aws.String(f.srv.DefaultVPCID())}
		},
		wantCode: "InvalidGroup.Duplicate",
	}, {
		name: "CreateSecurityGroup in an unknown VPC is InvalidVpcID.NotFound", source: refEC2Errors,
		input: func(*ec2Fixture) any {
			return &ec2.CreateSecurityGroupInput{GroupName: aws.String("web"), Description: aws.String("web"), VpcId: aws.String("vpc-0123456789abcdef0")}
		},
		wantCode: "InvalidVpcID.NotFound",
	}, {
		name: "AuthorizeSecurityGroupIngress of a rule the group has is InvalidPermission.Duplicate", source: refEC2Errors,
		setup: func(f *ec2Fixture) {
			f.sg("web")
			if _, err := f.c.AuthorizeSecurityGroupIngress(f.ctx, ingress(f.ids["web"], "10.1.0.0/16")); err != nil {
				f.t.Fatalf("setup AuthorizeSecurityGroupIngress: %v", err)
			}
		},
		input:    func(f *ec2Fixture) any { return ingress(f.ids["web"], "10.1.0.0/16") },
		wantCode: "InvalidPermission.Duplicate",
	}, {
		name: "DeleteSecurityGroup of an unknown group is InvalidGroup.NotFound", source: refEC2Errors,
		input: func(*ec2Fixture) any {
			return &ec2.DeleteSecurityGroupInput{GroupId: aws.String("sg-0123456789abcdef0")}
		},
		wantCode: "InvalidGroup.NotFound",
	}}
}

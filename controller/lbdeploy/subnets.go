package lbdeploy

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

const clusterTagPrefix = "kubernetes.io/cluster/"

// resolveSubnets turns the model's selector into subnet IDs, sorted. Given IDs are used as they are; tag
// discovery (LBC's) keeps the VPC's subnets with the role tags, drops those tagged for another cluster, and
// picks one per availability zone, preferring one tagged for this cluster, then the lowest ID.
func (d *Deployer) resolveSubnets(ctx context.Context, sel lbmodel.SubnetSelector) ([]string, error) {
	if len(sel.IDs) > 0 {
		ids := slices.Clone(sel.IDs)
		sort.Strings(ids)
		return ids, nil
	}
	filters := []ec2types.Filter{{Name: aws.String("vpc-id"), Values: []string{d.cfg.VpcID}}}
	for _, key := range sortedKeys(sel.Tags) {
		values := sel.Tags[key]
		if slices.Contains(values, "") { // any value: filter on the key alone
			filters = append(filters, ec2types.Filter{Name: aws.String("tag-key"), Values: []string{key}})
			continue
		}
		filters = append(filters, ec2types.Filter{Name: aws.String("tag:" + key), Values: values})
	}
	byZone := map[string]ec2types.Subnet{}
	p := ec2.NewDescribeSubnetsPaginator(d.cfg.EC2, &ec2.DescribeSubnetsInput{Filters: filters})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("DescribeSubnets: %w", err)
		}
		for _, sn := range page.Subnets {
			if d.taggedForOtherCluster(sn.Tags) {
				continue
			}
			zone := aws.ToString(sn.AvailabilityZone)
			if cur, ok := byZone[zone]; !ok || d.preferSubnet(sn, cur) {
				byZone[zone] = sn
			}
		}
	}
	if len(byZone) == 0 {
		return nil, fmt.Errorf("no subnet in %s matches %v", d.cfg.VpcID, sel.Tags)
	}
	ids := make([]string, 0, len(byZone))
	for _, sn := range byZone {
		ids = append(ids, aws.ToString(sn.SubnetId))
	}
	sort.Strings(ids)
	return ids, nil
}

func (d *Deployer) taggedForOtherCluster(tags []ec2types.Tag) bool {
	for _, t := range tags {
		k := aws.ToString(t.Key)
		if strings.HasPrefix(k, clusterTagPrefix) && k != clusterTagPrefix+d.cfg.ClusterName {
			return true
		}
	}
	return false
}

func (d *Deployer) preferSubnet(a, b ec2types.Subnet) bool {
	ta, tb := d.taggedForThisCluster(a.Tags), d.taggedForThisCluster(b.Tags)
	if ta != tb {
		return ta
	}
	return aws.ToString(a.SubnetId) < aws.ToString(b.SubnetId)
}

func (d *Deployer) taggedForThisCluster(tags []ec2types.Tag) bool {
	return slices.ContainsFunc(tags, func(t ec2types.Tag) bool { return aws.ToString(t.Key) == clusterTagPrefix+d.cfg.ClusterName })
}

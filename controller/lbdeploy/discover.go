package lbdeploy

import (
	"context"
	"fmt"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// describeTagsBatch is the most ARNs one DescribeTags call accepts.
const describeTagsBatch = 20

type existingLB struct {
	arn     string
	dnsName string
	lb      elbtypes.LoadBalancer
	tags    map[string]string
}

type existingTG struct {
	arn  string
	tg   elbtypes.TargetGroup
	tags map[string]string
}

// discovered is what AWS holds of one stack.
type discovered struct {
	loadBalancers []existingLB
	targetGroups  []existingTG
}

// discover lists the account's load balancers and target groups and keeps those tagged with this cluster and
// stack. ELBv2 cannot filter by tag, so, like LBC without the tagging API, it reads every resource's tags. Only
// Delete needs it: without a model there are no names to start from (Deploy uses discoverStack).
func (d *Deployer) discover(ctx context.Context, id lbmodel.StackID) (discovered, error) {
	var out discovered
	lbs, err := d.allLoadBalancers(ctx)
	if err != nil {
		return out, err
	}
	lbTags, err := d.tagsOf(ctx, sortedKeys(lbs))
	if err != nil {
		return out, err
	}
	for _, lb := range lbs {
		arn := aws.ToString(lb.LoadBalancerArn)
		if d.ownedBy(lbTags[arn], id) {
			out.loadBalancers = append(out.loadBalancers, existingLB{arn: arn, dnsName: aws.ToString(lb.DNSName), lb: lb, tags: lbTags[arn]})
		}
	}
	tgs := map[string]elbtypes.TargetGroup{}
	if err := d.addTargetGroups(ctx, tgs, &elbv2.DescribeTargetGroupsInput{PageSize: aws.Int32(400)}, false); err != nil {
		return out, err
	}
	tgTags, err := d.tagsOf(ctx, sortedKeys(tgs))
	if err != nil {
		return out, err
	}
	for _, arn := range sortedKeys(tgs) {
		tg := tgs[arn]
		if d.ownedBy(tgTags[arn], id) {
			out.targetGroups = append(out.targetGroups, existingTG{arn: arn, tg: tg, tags: tgTags[arn]})
		}
	}
	return out, nil
}

func (d *Deployer) ownedBy(tags map[string]string, id lbmodel.StackID) bool {
	return tags[lbmodel.TagCluster] == d.cfg.ClusterName && tags[id.StackTagKey()] == id.Name
}

// sortedKeys gives map keys in order, so that calls (and their batches) come in a reproducible order.
func sortedKeys[T any](m map[string]T) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func (d *Deployer) allLoadBalancers(ctx context.Context) (map[string]elbtypes.LoadBalancer, error) {
	out := map[string]elbtypes.LoadBalancer{}
	p := elbv2.NewDescribeLoadBalancersPaginator(d.cfg.ELB, &elbv2.DescribeLoadBalancersInput{PageSize: aws.Int32(400)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("DescribeLoadBalancers: %w", err)
		}
		for _, lb := range page.LoadBalancers {
			out[aws.ToString(lb.LoadBalancerArn)] = lb
		}
	}
	return out, nil
}

// tagsOf reads the tags of arns, describeTagsBatch at a time.
func (d *Deployer) tagsOf(ctx context.Context, arns []string) (map[string]map[string]string, error) {
	out := make(map[string]map[string]string, len(arns))
	for start := 0; start < len(arns); start += describeTagsBatch {
		batch := arns[start:min(start+describeTagsBatch, len(arns))]
		res, err := d.cfg.ELB.DescribeTags(ctx, &elbv2.DescribeTagsInput{ResourceArns: batch})
		if err != nil {
			return nil, fmt.Errorf("DescribeTags: %w", err)
		}
		for _, td := range res.TagDescriptions {
			m := make(map[string]string, len(td.Tags))
			for _, t := range td.Tags {
				m[aws.ToString(t.Key)] = aws.ToString(t.Value)
			}
			out[aws.ToString(td.ResourceArn)] = m
		}
	}
	return out, nil
}

// syncTags makes the resource's tags equal want, with one AddTags and one RemoveTags call at most.
func (d *Deployer) syncTags(ctx context.Context, arn string, have, want map[string]string) error {
	var add []elbtypes.Tag
	for k, v := range want {
		if hv, ok := have[k]; !ok || hv != v {
			add = append(add, elbtypes.Tag{Key: aws.String(k), Value: aws.String(v)})
		}
	}
	var remove []string
	for k := range have {
		if _, ok := want[k]; !ok {
			remove = append(remove, k)
		}
	}
	if len(add) > 0 {
		if _, err := d.cfg.ELB.AddTags(ctx, &elbv2.AddTagsInput{ResourceArns: []string{arn}, Tags: add}); err != nil {
			return fmt.Errorf("AddTags %s: %w", arn, err)
		}
	}
	if len(remove) > 0 {
		if _, err := d.cfg.ELB.RemoveTags(ctx, &elbv2.RemoveTagsInput{ResourceArns: []string{arn}, TagKeys: remove}); err != nil {
			return fmt.Errorf("RemoveTags %s: %w", arn, err)
		}
	}
	return nil
}

func sdkTags(m map[string]string) []elbtypes.Tag {
	out := make([]elbtypes.Tag, 0, len(m))
	for _, k := range sortedKeys(m) {
		out = append(out, elbtypes.Tag{Key: aws.String(k), Value: aws.String(m[k])})
	}
	return out
}

// changedKeys are the keys of want whose value differs in have, sorted.
func changedKeys(have, want map[string]string) []string {
	var out []string
	for _, k := range sortedKeys(want) {
		if v, ok := have[k]; !ok || v != want[k] {
			out = append(out, k)
		}
	}
	return out
}

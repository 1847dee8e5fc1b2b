package tgattach_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"golang.org/x/sync/errgroup"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/tgattach"
)

func clients(t *testing.T) (*fakeaws.Server, *elbv2.Client, *ec2.Client) {
	srv, err := fakeaws.New(fakeaws.Options{AccessKeyID: "k", SecretAccessKey: "s", Profile: fakeaws.ProfileUnlimited})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	cfg := aws.Config{Region: "us-west-2", Credentials: credentials.NewStaticCredentialsProvider("k", "s", ""),
		BaseEndpoint: aws.String(hs.URL), Retryer: func() aws.Retryer { return aws.NopRetryer{} }}
	return srv, elbv2.NewFromConfig(cfg), ec2.NewFromConfig(cfg)
}

func createTG(t *testing.T, c *elbv2.Client, vpc, name string) elbtypes.TargetGroup {
	out, err := c.CreateTargetGroup(context.Background(), &elbv2.CreateTargetGroupInput{Name: aws.String(name),
		Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(vpc), TargetType: elbtypes.TargetTypeEnumIp})
	if err != nil {
		t.Fatal(err)
	}
	return out.TargetGroups[0]
}

// TestAttachPacksWithinQuotas attaches 205 groups concurrently: they fill two load balancers of 100 rules and
// start a third, every group is forwarded to by exactly one, and its targets are health checked (initial,
// not unused). A second Attacher over the same account (a new run on a kept endpoint) leaves attached groups
// alone and adds new ones after the rules already there.
func TestAttachPacksWithinQuotas(t *testing.T) {
	srv, elb, ec := clients(t)
	ctx := context.Background()
	vpc := srv.DefaultVPCID()
	a := tgattach.New(elb, ec)
	tgs := make([]elbtypes.TargetGroup, 205)
	for i := range tgs {
		tgs[i] = createTG(t, elb, vpc, fmt.Sprintf("tg-%d", i))
	}
	var g errgroup.Group
	g.SetLimit(16)
	for _, tg := range tgs {
		g.Go(func() error { return a.Attach(ctx, tg) })
	}
	if err := g.Wait(); err != nil {
		t.Fatal(err)
	}
	lbs := map[string]int{}
	for _, tg := range srv.TargetGroups() {
		if len(tg.LoadBalancerARNs) != 1 {
			t.Fatalf("group %s is forwarded to by %v, want one load balancer", tg.Name, tg.LoadBalancerARNs)
		}
		lbs[tg.LoadBalancerARNs[0]]++
	}
	if len(lbs) != 3 {
		t.Fatalf("groups per load balancer %v, want 100, 100 and 5", lbs)
	}
	for lb, n := range lbs {
		if n > tgattach.RulesPerLoadBalancer {
			t.Errorf("%s holds %d groups, above the quota of %d", lb, n, tgattach.RulesPerLoadBalancer)
		}
	}
	if _, err := elb.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: tgs[204].TargetGroupArn,
		Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.1.10")}}}); err != nil {
		t.Fatal(err)
	}
	if hs, err := srv.Targets(aws.ToString(tgs[204].TargetGroupArn)); err != nil || len(hs) != 1 || hs[0].State != fakeaws.HealthInitial {
		t.Fatalf("target health %+v %v, want initial", hs, err)
	}

	again := tgattach.New(elb, ec)
	described, err := elb.DescribeTargetGroups(ctx, &elbv2.DescribeTargetGroupsInput{TargetGroupArns: []string{aws.ToString(tgs[0].TargetGroupArn)}})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Attach(ctx, described.TargetGroups[0]); err != nil {
		t.Fatalf("attaching an attached group again: %v", err)
	}
	for i := range 3 {
		if err := again.Attach(ctx, createTG(t, elb, vpc, fmt.Sprintf("next-%d", i))); err != nil {
			t.Fatalf("a new run's group %d: %v", i, err)
		}
	}
	if n := len(srv.LoadBalancers()); n != 3 {
		t.Errorf("%d load balancers after the second run, want the 3 the first made", n)
	}
}

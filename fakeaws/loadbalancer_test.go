package fakeaws_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestLoadBalancerCreateDescribe(t *testing.T) {
	e := newEnv(t, fakeaws.Options{LoadBalancerActiveAfter: 30 * time.Second})
	subnets := e.defaultSubnets(t)
	sg := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("lb-sg", "for the ALB", ""))
	out := must[*elb.CreateLoadBalancerOutput](t)(e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{
		Name: aws.String("web"), Subnets: subnets[:2], SecurityGroups: []string{sg.ID}, Scheme: elbtypes.LoadBalancerSchemeEnumInternal,
		Tags: []elbtypes.Tag{{Key: aws.String("elbv2.k8s.aws/cluster"), Value: aws.String("c1")}}}))
	lb := out.LoadBalancers[0]
	arn := aws.ToString(lb.LoadBalancerArn)
	if !strings.Contains(arn, ":loadbalancer/app/web/") || lb.Type != elbtypes.LoadBalancerTypeEnumApplication ||
		aws.ToString(lb.VpcId) != e.srv.DefaultVPCID() || lb.IpAddressType != elbtypes.IpAddressTypeIpv4 ||
		!strings.HasPrefix(aws.ToString(lb.DNSName), "internal-web-") || aws.ToString(lb.CanonicalHostedZoneId) != "Z1H1FL5HABSF5" ||
		!slices.Equal(lb.SecurityGroups, []string{sg.ID}) || len(lb.AvailabilityZones) != 2 || !lb.CreatedTime.Equal(t0) {
		t.Fatalf("created %+v", lb)
	}
	if lb.State.Code != elbtypes.LoadBalancerStateEnumProvisioning {
		t.Fatalf("state at creation = %s, want provisioning", lb.State.Code)
	}
	state := func() elbtypes.LoadBalancerStateEnum {
		d := must[*elb.DescribeLoadBalancersOutput](t)(e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{Names: []string{"web"}}))
		return d.LoadBalancers[0].State.Code
	}
	e.clock.Step(29 * time.Second)
	if got := state(); got != elbtypes.LoadBalancerStateEnumProvisioning {
		t.Fatalf("state after 29s = %s", got)
	}
	e.clock.Step(time.Second)
	if got := state(); got != elbtypes.LoadBalancerStateEnumActive {
		t.Fatalf("state after 30s = %s, want active", got)
	}
	byARN := must[*elb.DescribeLoadBalancersOutput](t)(e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{arn}}))
	if aws.ToString(byARN.LoadBalancers[0].LoadBalancerName) != "web" {
		t.Fatal("describe by ARN")
	}

	// An application load balancer without groups gets the VPC's default group; a network one gets none.
	def := e.createLB(t, "web-2", elbtypes.LoadBalancerTypeEnumApplication)
	if len(def.SecurityGroups) != 1 || def.SecurityGroups[0] == sg.ID || len(def.AvailabilityZones) != 3 {
		t.Fatalf("default groups %v, zones %d", def.SecurityGroups, len(def.AvailabilityZones))
	}
	nlb := e.createLB(t, "tcp", elbtypes.LoadBalancerTypeEnumNetwork)
	if len(nlb.SecurityGroups) != 0 || !strings.Contains(aws.ToString(nlb.LoadBalancerArn), ":loadbalancer/net/tcp/") ||
		aws.ToString(nlb.CanonicalHostedZoneId) != "Z18D5FSROUN65G" || !strings.Contains(aws.ToString(nlb.DNSName), ".elb.us-west-2.amazonaws.com") {
		t.Fatalf("network load balancer %+v", nlb)
	}
	mapped := must[*elb.CreateLoadBalancerOutput](t)(e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{
		Name: aws.String("mapped"), Type: elbtypes.LoadBalancerTypeEnumNetwork,
		SubnetMappings: []elbtypes.SubnetMapping{{SubnetId: aws.String(subnets[2])}}}))
	if z := mapped.LoadBalancers[0].AvailabilityZones; len(z) != 1 || aws.ToString(z[0].SubnetId) != subnets[2] || aws.ToString(z[0].ZoneName) != zoneOf(e, subnets[2]) {
		t.Fatalf("subnet mappings: %+v", z)
	}
	if got := len(e.srv.LoadBalancers()); got != 4 {
		t.Fatalf("server lists %d load balancers", got)
	}
}

// TestLoadBalancerProvisioningScaled: the provisioning delay is scenario time, so TimeScale shortens it in clock
// time like every other delay.
func TestLoadBalancerProvisioningScaled(t *testing.T) {
	e := newEnv(t, fakeaws.Options{TimeScale: 10, LoadBalancerActiveAfter: 30 * time.Second})
	arn := aws.ToString(e.createLB(t, "web", elbtypes.LoadBalancerTypeEnumApplication).LoadBalancerArn)
	state := func() elbtypes.LoadBalancerStateEnum {
		d := must[*elb.DescribeLoadBalancersOutput](t)(e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{arn}}))
		return d.LoadBalancers[0].State.Code
	}
	e.clock.Step(2900 * time.Millisecond) // 29 s of scenario time
	if got := state(); got != elbtypes.LoadBalancerStateEnumProvisioning {
		t.Fatalf("after 2.9 s at ×10: %s", got)
	}
	e.clock.Step(100 * time.Millisecond)
	if got := state(); got != elbtypes.LoadBalancerStateEnumActive {
		t.Fatalf("after 3 s at ×10: %s, want active", got)
	}
	if got := e.srv.Options().LoadBalancerActiveAfter; got != 30*time.Second {
		t.Fatalf("option %v", got)
	}
	if def := must[*fakeaws.Server](t)(fakeaws.New(fakeaws.Options{})).Options().LoadBalancerActiveAfter; def != 5*time.Second {
		t.Fatalf("default provisioning delay %v, want 5s", def)
	}
}

func TestLoadBalancerErrors(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxLoadBalancers: 2})
	subnets := e.defaultSubnets(t)
	create := func(name string, in elb.CreateLoadBalancerInput) error {
		in.Name = aws.String(name)
		_, err := e.elb.CreateLoadBalancer(ctx, &in)
		return err
	}
	first := e.createLB(t, "dup", elbtypes.LoadBalancerTypeEnumApplication)
	// The same name and settings is the same load balancer; other settings are a duplicate.
	again := must[*elb.CreateLoadBalancerOutput](t)(e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{Name: aws.String("dup"), Subnets: subnets}))
	if aws.ToString(again.LoadBalancers[0].LoadBalancerArn) != aws.ToString(first.LoadBalancerArn) {
		t.Fatal("idempotent create returned another load balancer")
	}
	wantCode(t, create("dup", elb.CreateLoadBalancerInput{Subnets: subnets[:2]}), "DuplicateLoadBalancerName")
	wantCode(t, create("dup", elb.CreateLoadBalancerInput{Subnets: subnets, Scheme: elbtypes.LoadBalancerSchemeEnumInternal}), "DuplicateLoadBalancerName")
	wantCode(t, create("x", elb.CreateLoadBalancerInput{Subnets: []string{subnets[0], "subnet-0000000000000000"}}), "SubnetNotFound")
	wantCode(t, create("x", elb.CreateLoadBalancerInput{Subnets: subnets[:1]}), "ValidationError") // ALB: two zones
	wantCode(t, create("x", elb.CreateLoadBalancerInput{Subnets: subnets, SecurityGroups: []string{"sg-00000000000000000"}}), "InvalidSecurityGroup")
	wantCode(t, create("-bad", elb.CreateLoadBalancerInput{Subnets: subnets}), "ValidationError")
	wantCode(t, create("internal-x", elb.CreateLoadBalancerInput{Subnets: subnets}), "ValidationError")
	wantCode(t, create("x", elb.CreateLoadBalancerInput{Subnets: subnets, Scheme: "public"}), "ValidationError")
	wantCode(t, create("x", elb.CreateLoadBalancerInput{Subnets: subnets, SubnetMappings: []elbtypes.SubnetMapping{{SubnetId: aws.String(subnets[0])}}}), "ValidationError")
	other := must[fakeaws.Subnet](t)(e.srv.SeedSubnet(fakeaws.Subnet{CIDR: "10.0.96.0/19", AvailabilityZone: "us-west-2a"}))
	wantCode(t, create("x", elb.CreateLoadBalancerInput{Subnets: []string{subnets[0], other.ID}}), "InvalidConfigurationRequest") // one zone twice
	e.createLB(t, "second", elbtypes.LoadBalancerTypeEnumApplication)
	wantCode(t, create("third", elb.CreateLoadBalancerInput{Subnets: subnets}), "TooManyLoadBalancers")

	_, err := e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{Names: []string{"nope"}})
	wantCode(t, err, "LoadBalancerNotFound")
	gone := strings.Replace(aws.ToString(first.LoadBalancerArn), "/dup/", "/gone/", 1)
	_, err = e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{gone}})
	wantCode(t, err, "LoadBalancerNotFound")
	_, err = e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{LoadBalancerArns: []string{"not-an-arn"}})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{Names: []string{"dup"}, LoadBalancerArns: []string{gone}})
	wantCode(t, err, "ValidationError")
	// Deleting an unknown load balancer succeeds, as in AWS.
	must[*elb.DeleteLoadBalancerOutput](t)(e.elb.DeleteLoadBalancer(ctx, &elb.DeleteLoadBalancerInput{LoadBalancerArn: aws.String(gone)}))
}

func TestLoadBalancerPagination(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("lb-%d", i)
		e.createLB(t, name, elbtypes.LoadBalancerTypeEnumNetwork)
		want = append(want, name)
	}
	var got []string
	p := elb.NewDescribeLoadBalancersPaginator(e.elb, &elb.DescribeLoadBalancersInput{PageSize: aws.Int32(3)})
	pages := 0
	for p.HasMorePages() {
		page := must[*elb.DescribeLoadBalancersOutput](t)(p.NextPage(ctx))
		pages++
		for _, lb := range page.LoadBalancers {
			got = append(got, aws.ToString(lb.LoadBalancerName))
		}
	}
	if pages != 3 || !slices.Equal(got, want) {
		t.Fatalf("%d pages: %v, want 3 pages of %v", pages, got, want)
	}
	_, err := e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{PageSize: aws.Int32(401)})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.DescribeLoadBalancers(ctx, &elb.DescribeLoadBalancersInput{Marker: aws.String("bogus")})
	wantCode(t, err, "ValidationError")
}

func TestLoadBalancerDeleteAndAttributes(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	sg := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("lb-sg", "for the ALB", ""))
	out := must[*elb.CreateLoadBalancerOutput](t)(e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{
		Name: aws.String("web"), Subnets: e.defaultSubnets(t), SecurityGroups: []string{sg.ID}}))
	lb := out.LoadBalancers[0].LoadBalancerArn
	tg := e.createTG(t, "web-tg", "ip", 80)
	l := e.createListener(t, *lb, 80, forwardTo(tg))
	must[*elb.CreateRuleOutput](t)(e.elb.CreateRule(ctx, &elb.CreateRuleInput{ListenerArn: l.ListenerArn, Priority: aws.Int32(1),
		Conditions: hostRule("a.example.com"), Actions: forwardTo(tg)}))

	// A group a load balancer uses cannot be deleted, like EC2's DependencyViolation.
	_, err := e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(sg.ID)})
	wantCode(t, err, "DependencyViolation")
	_, err = e.elb.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: aws.String(tg)})
	wantCode(t, err, "ResourceInUse")

	attrs := must[*elb.DescribeLoadBalancerAttributesOutput](t)(e.elb.DescribeLoadBalancerAttributes(ctx, &elb.DescribeLoadBalancerAttributesInput{LoadBalancerArn: lb}))
	if v := attrValue(attrs.Attributes, "idle_timeout.timeout_seconds"); v != "60" {
		t.Fatalf("idle timeout default %q", v)
	}
	modify := func(k, v string) error {
		_, err := e.elb.ModifyLoadBalancerAttributes(ctx, &elb.ModifyLoadBalancerAttributesInput{LoadBalancerArn: lb,
			Attributes: []elbtypes.LoadBalancerAttribute{{Key: aws.String(k), Value: aws.String(v)}}})
		return err
	}
	wantCode(t, modify("no.such.key", "1"), "ValidationError")
	wantCode(t, modify("deletion_protection.enabled", "yes"), "InvalidConfigurationRequest")
	wantCode(t, modify("idle_timeout.timeout_seconds", "5000"), "InvalidConfigurationRequest")
	if err := modify("deletion_protection.enabled", "true"); err != nil {
		t.Fatal(err)
	}
	_, err = e.elb.DeleteLoadBalancer(ctx, &elb.DeleteLoadBalancerInput{LoadBalancerArn: lb})
	wantCode(t, err, "OperationNotPermitted")
	if err := modify("deletion_protection.enabled", "false"); err != nil {
		t.Fatal(err)
	}
	must[*elb.DeleteLoadBalancerOutput](t)(e.elb.DeleteLoadBalancer(ctx, &elb.DeleteLoadBalancerInput{LoadBalancerArn: lb}))
	_, err = e.elb.DescribeListeners(ctx, &elb.DescribeListenersInput{ListenerArns: []string{*l.ListenerArn}})
	wantCode(t, err, "ListenerNotFound")
	tgs := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{tg}}))
	if n := len(tgs.TargetGroups[0].LoadBalancerArns); n != 0 {
		t.Fatalf("deleted load balancer still listed by its target group (%d)", n)
	}
	must[*elb.DeleteTargetGroupOutput](t)(e.elb.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: aws.String(tg)}))
	must[*ec2.DeleteSecurityGroupOutput](t)(e.ec2.DeleteSecurityGroup(ctx, &ec2.DeleteSecurityGroupInput{GroupId: aws.String(sg.ID)}))
}

func attrValue[A interface {
	elbtypes.LoadBalancerAttribute | elbtypes.TargetGroupAttribute | elbtypes.ListenerAttribute
}](as []A, key string) string {
	for _, a := range as {
		var k, v *string
		switch x := any(a).(type) {
		case elbtypes.LoadBalancerAttribute:
			k, v = x.Key, x.Value
		case elbtypes.TargetGroupAttribute:
			k, v = x.Key, x.Value
		case elbtypes.ListenerAttribute:
			k, v = x.Key, x.Value
		}
		if aws.ToString(k) == key {
			return aws.ToString(v)
		}
	}
	return "<absent>"
}

// TestCreateLoadBalancerThrottle: CreateLoadBalancer draws on the resource-intensive bucket (burst 10, 0.2 per
// second), not on the mutating one.
func TestCreateLoadBalancerThrottle(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileAWSDocumented})
	subnets := e.defaultSubnets(t)
	n := e.srv.Recorder().Len()
	create := func(i int) error {
		_, err := e.elb.CreateLoadBalancer(ctx, &elb.CreateLoadBalancerInput{Name: aws.String(fmt.Sprintf("burst-%d", i)),
			Type: elbtypes.LoadBalancerTypeEnumNetwork, Subnets: subnets[:1]})
		return err
	}
	for i := range 13 {
		if err := create(i); err != nil && (apiCode(err) != "Throttling" || httpStatus(err) != 400) {
			t.Fatal(err)
		}
	}
	if ok, throttled := e.outcomes(n, "CreateLoadBalancer"); ok != 10 || throttled != 3 {
		t.Fatalf("at one instant: %d ok, %d throttled; want the burst of 10 and 3 throttled", ok, throttled)
	}
	for _, c := range e.srv.Recorder().Since(n) {
		if c.Bucket != fakeaws.CategoryELBResourceIntensive {
			t.Fatalf("CreateLoadBalancer charged to %q", c.Bucket)
		}
	}
	// A listener is mutating: its bucket is still full.
	lb := e.srv.LoadBalancers()[0].ARN
	tg := must[*elb.CreateTargetGroupOutput](t)(e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String("t"),
		Protocol: elbtypes.ProtocolEnumTcp, Port: aws.Int32(80), VpcId: aws.String(e.srv.DefaultVPCID())}))
	must[*elb.CreateListenerOutput](t)(e.elb.CreateListener(ctx, &elb.CreateListenerInput{LoadBalancerArn: aws.String(lb),
		Protocol: elbtypes.ProtocolEnumTcp, Port: aws.Int32(80), DefaultActions: forwardTo(*tg.TargetGroups[0].TargetGroupArn)}))
	e.clock.Step(5 * time.Second) // 0.2 per second: one token
	wantOK := []bool{true, false}
	for i, want := range wantOK {
		if err := create(100 + i); (err == nil) != want {
			t.Fatalf("after 5 s, call %d: err %v", i, err)
		}
	}
	if got := counterValue(t, e.srv, "fakeaws_requests_total", map[string]string{"operation": "CreateLoadBalancer", "code": "Throttling"}); got != 4 {
		t.Fatalf("throttled CreateLoadBalancer counted %v times, want 4", got)
	}
}

func zoneOf(e *env, subnetID string) string {
	for _, sn := range e.srv.Subnets() {
		if sn.ID == subnetID {
			return sn.AvailabilityZone
		}
	}
	return "<no such subnet>"
}

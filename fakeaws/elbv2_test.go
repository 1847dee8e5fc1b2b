package fakeaws_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestTargetGroupLifecycle(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	out, err := e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{
		Name: aws.String("tg-a"), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(8080),
		VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnumIp,
		Tags: []elbtypes.Tag{{Key: aws.String("k"), Value: aws.String("v")}},
	})
	if err != nil {
		t.Fatal(err)
	}
	tg := out.TargetGroups[0]
	if *tg.TargetGroupName != "tg-a" || *tg.Port != 8080 || tg.TargetType != elbtypes.TargetTypeEnumIp || *tg.HealthCheckPath != "/" || *tg.HealthyThresholdCount != 5 {
		t.Fatalf("unexpected target group %+v", tg)
	}
	// Idempotent create with identical settings; different settings are a duplicate.
	again := must[*elb.CreateTargetGroupOutput](t)(e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{
		Name: aws.String("tg-a"), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(8080),
		VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnumIp,
	}))
	if *again.TargetGroups[0].TargetGroupArn != *tg.TargetGroupArn {
		t.Fatal("idempotent create returned another ARN")
	}
	_, err = e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{
		Name: aws.String("tg-a"), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(9090), VpcId: aws.String(e.srv.DefaultVPCID()),
	})
	wantCode(t, err, "DuplicateTargetGroupName")

	mod := must[*elb.ModifyTargetGroupOutput](t)(e.elb.ModifyTargetGroup(ctx, &elb.ModifyTargetGroupInput{
		TargetGroupArn: tg.TargetGroupArn, HealthCheckPath: aws.String("/healthz"), HealthyThresholdCount: aws.Int32(2),
	}))
	if *mod.TargetGroups[0].HealthCheckPath != "/healthz" || *mod.TargetGroups[0].HealthyThresholdCount != 2 {
		t.Fatalf("modify not applied: %+v", mod.TargetGroups[0])
	}
	byName := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Names: []string{"tg-a"}}))
	if len(byName.TargetGroups) != 1 || *byName.TargetGroups[0].HealthCheckPath != "/healthz" {
		t.Fatalf("describe by name: %+v", byName.TargetGroups)
	}
	byARN := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{*tg.TargetGroupArn}}))
	if len(byARN.TargetGroups) != 1 {
		t.Fatal("describe by ARN")
	}
	must[*elb.DeleteTargetGroupOutput](t)(e.elb.DeleteTargetGroup(ctx, &elb.DeleteTargetGroupInput{TargetGroupArn: tg.TargetGroupArn}))
	_, err = e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{*tg.TargetGroupArn}})
	wantCode(t, err, "TargetGroupNotFound")
	if len(e.srv.TargetGroups()) != 0 {
		t.Fatal("target group still in state")
	}
}

func TestDescribeTargetGroupsPaging(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	for i := range 7 {
		e.createTG(t, fmt.Sprintf("tg-%02d", i), "ip", 80)
	}
	var names []string
	pages := 0
	p := elb.NewDescribeTargetGroupsPaginator(e.elb, &elb.DescribeTargetGroupsInput{PageSize: aws.Int32(3)})
	for p.HasMorePages() {
		out := must[*elb.DescribeTargetGroupsOutput](t)(p.NextPage(ctx))
		pages++
		for _, tg := range out.TargetGroups {
			names = append(names, *tg.TargetGroupName)
		}
	}
	if pages != 3 || len(names) != 7 || !slices.IsSorted(names) {
		t.Fatalf("pages=%d names=%v", pages, names)
	}
	_, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Marker: aws.String("garbage!")})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{PageSize: aws.Int32(401)})
	wantCode(t, err, "ValidationError")
}

func TestTargetHealthStateMachine(t *testing.T) {
	e := newEnv(t, fakeaws.Options{HealthyAfter: 10 * time.Second, DeregistrationDelay: 30 * time.Second})
	arn := e.createTG(t, "tg-ip", "ip", 8080)
	targets := []elbtypes.TargetDescription{{Id: aws.String("10.0.1.1")}, {Id: aws.String("10.0.1.2"), Port: aws.Int32(9090)}}
	must[*elb.RegisterTargetsOutput](t)(e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: targets}))
	// No load balancer uses the group yet: its targets are not health checked.
	unused := must[*elb.DescribeTargetHealthOutput](t)(e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)}))
	for _, d := range unused.TargetHealthDescriptions {
		if d.TargetHealth.State != elbtypes.TargetHealthStateEnumUnused || d.TargetHealth.Reason != elbtypes.TargetHealthReasonEnumNotInUse {
			t.Fatalf("target of an unused group: %s/%s, want unused/Target.NotInUse", d.TargetHealth.State, d.TargetHealth.Reason)
		}
	}
	e.useTG(t, "lb-ip", arn)

	health := func() map[string]elbtypes.TargetHealthStateEnum {
		t.Helper()
		out := must[*elb.DescribeTargetHealthOutput](t)(e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)}))
		m := map[string]elbtypes.TargetHealthStateEnum{}
		for _, d := range out.TargetHealthDescriptions {
			m[fmt.Sprintf("%s:%d", *d.Target.Id, *d.Target.Port)] = d.TargetHealth.State
			if d.TargetHealth.State == elbtypes.TargetHealthStateEnumInitial && d.TargetHealth.Reason != elbtypes.TargetHealthReasonEnumRegistrationInProgress {
				t.Fatalf("initial reason = %q", d.TargetHealth.Reason)
			}
			if d.TargetHealth.State == elbtypes.TargetHealthStateEnumDraining && d.TargetHealth.Reason != elbtypes.TargetHealthReasonEnumDeregistrationInProgress {
				t.Fatalf("draining reason = %q", d.TargetHealth.Reason)
			}
		}
		return m
	}
	if h := health(); h["10.0.1.1:8080"] != "initial" || h["10.0.1.2:9090"] != "initial" {
		t.Fatalf("after register: %v", h)
	}
	e.clock.Step(9 * time.Second)
	if h := health(); h["10.0.1.1:8080"] != "initial" {
		t.Fatalf("at 9s: %v", h)
	}
	e.clock.Step(time.Second)
	if h := health(); h["10.0.1.1:8080"] != "healthy" || h["10.0.1.2:9090"] != "healthy" {
		t.Fatalf("at 10s: %v", h)
	}
	must[*elb.DeregisterTargetsOutput](t)(e.elb.DeregisterTargets(ctx, &elb.DeregisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: targets[:1]}))
	if h := health(); h["10.0.1.1:8080"] != "draining" || h["10.0.1.2:9090"] != "healthy" {
		t.Fatalf("after deregister: %v", h)
	}
	e.clock.Step(29 * time.Second)
	if h := health(); h["10.0.1.1:8080"] != "draining" {
		t.Fatalf("at 29s draining: %v", h)
	}
	e.clock.Step(time.Second)
	if h := health(); len(h) != 1 || h["10.0.1.2:9090"] != "healthy" {
		t.Fatalf("after drain: %v", h)
	}
	// Filtered describe of an unknown target reports unused / Target.NotRegistered.
	out := must[*elb.DescribeTargetHealthOutput](t)(e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn), Targets: targets[:1]}))
	if d := out.TargetHealthDescriptions; len(d) != 1 || d[0].TargetHealth.State != "unused" || d[0].TargetHealth.Reason != elbtypes.TargetHealthReasonEnumNotRegistered {
		t.Fatalf("unknown target: %+v", d)
	}
	// Re-registering a draining target restarts it as initial.
	must[*elb.DeregisterTargetsOutput](t)(e.elb.DeregisterTargets(ctx, &elb.DeregisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: targets[1:]}))
	must[*elb.RegisterTargetsOutput](t)(e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: targets[1:]}))
	if h := health(); h["10.0.1.2:9090"] != "initial" {
		t.Fatalf("re-register: %v", h)
	}
	ths := must[[]fakeaws.TargetHealth](t)(e.srv.Targets(arn))
	if len(ths) != 1 || ths[0].State != fakeaws.HealthInitial || !ths[0].HealthyAt.Equal(e.clock.Now().Add(10*time.Second)) {
		t.Fatalf("Go API targets: %+v", ths)
	}
}

func TestRegisterTargetsErrors(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxTargetsPerGroup: 2})
	ipTG := e.createTG(t, "tg-ip", "ip", 80)
	instTG := e.createTG(t, "tg-inst", "instance", 80)
	must[fakeaws.Instance](t)(e.srv.SeedInstance(fakeaws.Instance{ID: "i-0123456789abcdef0", PrivateIP: "10.0.2.1", AvailabilityZone: "us-west-2a"}))

	reg := func(arn string, ids ...string) error {
		var ts []elbtypes.TargetDescription
		for _, id := range ids {
			ts = append(ts, elbtypes.TargetDescription{Id: aws.String(id)})
		}
		_, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: ts})
		return err
	}
	wantCode(t, reg(instTG, "10.0.0.5"), "InvalidTarget")          // IP on an instance group
	wantCode(t, reg(ipTG, "i-0123456789abcdef0"), "InvalidTarget") // instance on an IP group
	wantCode(t, reg(ipTG, "192.168.0.1"), "InvalidTarget")         // outside the VPC
	wantCode(t, reg(ipTG+"x", "10.0.0.5"), "TargetGroupNotFound")
	if err := reg(instTG, "i-0123456789abcdef0"); err != nil {
		t.Fatal(err)
	}
	wantCode(t, reg(ipTG, "10.0.0.1", "10.0.0.2", "10.0.0.3"), "TooManyTargets")
	_, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(ipTG), Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.0.1"), Port: aws.Int32(70000)}}})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.DeregisterTargets(ctx, &elb.DeregisterTargetsInput{TargetGroupArn: aws.String(ipTG), Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.0.9")}}})
	wantCode(t, err, "InvalidTarget")
	_, err = e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(ipTG + "x")})
	wantCode(t, err, "TargetGroupNotFound")
	_, err = e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String("-bad-"), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(e.srv.DefaultVPCID())})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String("novpc"), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String("vpc-nope")})
	wantCode(t, err, "ValidationError")
	_, err = e.elb.ModifyTargetGroup(ctx, &elb.ModifyTargetGroupInput{TargetGroupArn: aws.String(ipTG), HealthCheckIntervalSeconds: aws.Int32(1)})
	wantCode(t, err, "ValidationError")
}

// TestRegisterTargetsCountsARepeatedTargetOnce: AWS registers an Id and Port named several times in one call
// once, so the repeats do not count against the targets quota (the group's port stands for an omitted one).
func TestRegisterTargetsCountsARepeatedTargetOnce(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxTargetsPerGroup: 2})
	arn := e.createTG(t, "tg-dup", "ip", 80)
	reg := func(ts ...elbtypes.TargetDescription) error {
		_, err := e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: ts})
		return err
	}
	one := elbtypes.TargetDescription{Id: aws.String("10.0.0.1")}
	onePort := elbtypes.TargetDescription{Id: aws.String("10.0.0.1"), Port: aws.Int32(80)}
	if err := reg(one, one, onePort, one); err != nil {
		t.Fatalf("one target named four times: %v", err)
	}
	two := elbtypes.TargetDescription{Id: aws.String("10.0.0.2")}
	if err := reg(two, two, one); err != nil {
		t.Fatalf("a second target named twice beside the first: %v", err)
	}
	hs := must[*elb.DescribeTargetHealthOutput](t)(e.elb.DescribeTargetHealth(ctx, &elb.DescribeTargetHealthInput{TargetGroupArn: aws.String(arn)}))
	if len(hs.TargetHealthDescriptions) != 2 {
		t.Fatalf("%d targets registered, want 2", len(hs.TargetHealthDescriptions))
	}
	wantCode(t, reg(elbtypes.TargetDescription{Id: aws.String("10.0.0.3")}), "TooManyTargets")
}

// An HTTP health check must time out before the interval ends; a TCP one (Network Load
// Balancers; LBC's NLB default is 10 s timeout every 10 s) may last the whole interval.
func TestHealthCheckTimeoutAgainstInterval(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	create := func(name string, p elbtypes.ProtocolEnum, timeout, interval int32) error {
		_, err := e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String(name), Protocol: p, Port: aws.Int32(80),
			VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnumIp,
			HealthCheckTimeoutSeconds: aws.Int32(timeout), HealthCheckIntervalSeconds: aws.Int32(interval)})
		return err
	}
	wantCode(t, create("http-equal", elbtypes.ProtocolEnumHttp, 10, 10), "ValidationError")
	if err := create("http-shorter", elbtypes.ProtocolEnumHttp, 9, 10); err != nil {
		t.Fatal(err)
	}
	if err := create("tcp-equal", elbtypes.ProtocolEnumTcp, 10, 10); err != nil {
		t.Fatal(err)
	}
	wantCode(t, create("tcp-longer", elbtypes.ProtocolEnumTcp, 11, 10), "ValidationError")
}

func TestTooManyTargetGroups(t *testing.T) {
	e := newEnv(t, fakeaws.Options{MaxTargetGroups: 1})
	e.createTG(t, "one", "ip", 80)
	_, err := e.elb.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{Name: aws.String("two"), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(80), VpcId: aws.String(e.srv.DefaultVPCID())})
	wantCode(t, err, "TooManyTargetGroups")
}

func TestELBTags(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	arn := e.createTG(t, "tagged", "ip", 80)
	must[*elb.AddTagsOutput](t)(e.elb.AddTags(ctx, &elb.AddTagsInput{ResourceArns: []string{arn}, Tags: []elbtypes.Tag{
		{Key: aws.String("a"), Value: aws.String("1")}, {Key: aws.String("b"), Value: aws.String("2")}}}))
	must[*elb.RemoveTagsOutput](t)(e.elb.RemoveTags(ctx, &elb.RemoveTagsInput{ResourceArns: []string{arn}, TagKeys: []string{"a"}}))
	out := must[*elb.DescribeTagsOutput](t)(e.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: []string{arn}}))
	if len(out.TagDescriptions) != 1 || len(out.TagDescriptions[0].Tags) != 1 || *out.TagDescriptions[0].Tags[0].Key != "b" {
		t.Fatalf("tags: %+v", out.TagDescriptions)
	}
	_, err := e.elb.AddTags(ctx, &elb.AddTagsInput{ResourceArns: []string{arn}, Tags: []elbtypes.Tag{{Key: aws.String("x")}, {Key: aws.String("x")}}})
	wantCode(t, err, "DuplicateTagKeys")
	var many []elbtypes.Tag
	for i := range 51 {
		many = append(many, elbtypes.Tag{Key: aws.String(fmt.Sprint("k", i)), Value: aws.String("v")})
	}
	_, err = e.elb.AddTags(ctx, &elb.AddTagsInput{ResourceArns: []string{arn}, Tags: many})
	wantCode(t, err, "TooManyTags")
	_, err = e.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: []string{arn + "zz"}})
	wantCode(t, err, "TargetGroupNotFound")
	_, err = e.elb.DescribeTags(ctx, &elb.DescribeTagsInput{ResourceArns: []string{"arn:aws:elasticloadbalancing:us-west-2:123456789012:loadbalancer/app/x/1"}})
	wantCode(t, err, "LoadBalancerNotFound")
}

// TestDescribeTargetGroupsLookups: by ARN and by name return the groups asked for, in the order asked, paged;
// the first bad ARN decides the error.
func TestDescribeTargetGroupsLookups(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	a, b := e.createTG(t, "a", "ip", 80), e.createTG(t, "b", "ip", 80)
	out := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{b, a, b}, PageSize: aws.Int32(2)}))
	if len(out.TargetGroups) != 2 || *out.TargetGroups[0].TargetGroupArn != b || *out.TargetGroups[1].TargetGroupArn != a || out.NextMarker == nil {
		t.Fatalf("by ARN: %+v", out)
	}
	out = must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{b, a, b}, Marker: out.NextMarker}))
	if len(out.TargetGroups) != 1 || *out.TargetGroups[0].TargetGroupArn != b || out.NextMarker != nil {
		t.Fatalf("by ARN, page 2: %+v", out)
	}
	out = must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Names: []string{"b", "a"}}))
	if len(out.TargetGroups) != 2 || *out.TargetGroups[0].TargetGroupName != "b" {
		t.Fatalf("by name: %+v", out)
	}
	_, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Names: []string{"a", "zz"}})
	wantCode(t, err, "TargetGroupNotFound")
	_, err = e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{a, a + "x", "bad"}})
	wantCode(t, err, "TargetGroupNotFound")
	_, err = e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{TargetGroupArns: []string{a, "bad", a + "x"}})
	wantCode(t, err, "ValidationError")
}

// An HTTP or HTTPS group has a protocol version, HTTP1 unless asked otherwise, and describes it (a
// controller comparing its model with AWS replaces a group whose version differs); other protocols
// have none.
func TestTargetGroupProtocolVersion(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	create := func(name string, p elbtypes.ProtocolEnum, version string) (*elb.CreateTargetGroupOutput, error) {
		in := &elb.CreateTargetGroupInput{Name: aws.String(name), Protocol: p, Port: aws.Int32(80), VpcId: aws.String(e.srv.DefaultVPCID()), TargetType: elbtypes.TargetTypeEnumIp}
		if version != "" {
			in.ProtocolVersion = aws.String(version)
		}
		return e.elb.CreateTargetGroup(ctx, in)
	}
	for name, c := range map[string]struct {
		p             elbtypes.ProtocolEnum
		asked, stored string
	}{"http-default": {elbtypes.ProtocolEnumHttp, "", "HTTP1"}, "https-grpc": {elbtypes.ProtocolEnumHttps, "GRPC", "GRPC"}, "tcp": {elbtypes.ProtocolEnumTcp, "", ""}} {
		out := must[*elb.CreateTargetGroupOutput](t)(create(name, c.p, c.asked))
		desc := must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{Names: []string{name}}))
		if got, described := aws.ToString(out.TargetGroups[0].ProtocolVersion), aws.ToString(desc.TargetGroups[0].ProtocolVersion); got != c.stored || described != c.stored {
			t.Errorf("%s: protocol version created %q, described %q, want %q", name, got, described, c.stored)
		}
	}
	_, err := create("tcp-http2", elbtypes.ProtocolEnumTcp, "HTTP2")
	wantCode(t, err, "ValidationError")
	_, err = create("http-bad", elbtypes.ProtocolEnumHttp, "SPDY")
	wantCode(t, err, "ValidationError")
}

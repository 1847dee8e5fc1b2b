package fakeaws_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/restartsim/restartsim/fakeaws"
)

func TestErrorInjectionAndOutage(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	e.srv.SetErrorRate("DescribeTargetGroups", 1, "InternalFailure")
	_, err := e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{})
	if wantCode(t, err, "InternalFailure"); httpStatus(err) != 500 {
		t.Fatalf("status %d", httpStatus(err))
	}
	e.srv.SetErrorRate(fakeaws.AllOperations, 1, "ServiceUnavailable")
	_, err = e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	if wantCode(t, err, "ServiceUnavailable"); httpStatus(err) != 503 {
		t.Fatalf("status %d", httpStatus(err))
	}
	e.srv.SetErrorRate(fakeaws.AllOperations, 0, "")
	e.srv.SetErrorRate("DescribeTargetGroups", 0, "")

	e.srv.AddOutage(e.srv.Now().Add(10*time.Second), 5*time.Second, "ec2")
	must[*ec2.DescribeVpcsOutput](t)(e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}))
	e.clock.Step(12 * time.Second)
	_, err = e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	wantCode(t, err, "Unavailable")
	must[*elb.DescribeTargetGroupsOutput](t)(e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{})) // elbv2 unaffected
	e.clock.Step(3 * time.Second)
	must[*ec2.DescribeVpcsOutput](t)(e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}))
}

// TestLatencyAndTimeScale: 2 s of injected latency at TimeScale 10 waits 200 ms of clock time and is recorded as
// 2 s of scenario time; buckets refill 10× faster per clock second.
func TestLatencyAndTimeScale(t *testing.T) {
	e := newEnv(t, fakeaws.Options{TimeScale: 10, Profile: fakeaws.ProfileAWSDocumented})
	e.srv.SetLatency("DescribeVpcs", 2*time.Second, 0)
	done := make(chan error, 1)
	go func() { _, err := e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{}); done <- err }()
	for !e.clock.HasWaiters() {
		time.Sleep(time.Millisecond)
	}
	e.clock.Step(199 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("returned before the latency elapsed (error %v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	e.clock.Step(time.Millisecond)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	calls := e.srv.Recorder().Calls()
	if c := calls[len(calls)-1]; c.Latency != 2*time.Second || !c.Time.Equal(t0) {
		t.Fatalf("recorded %+v", c)
	}
	if now := e.srv.Now(); !now.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("scenario now %v", now)
	}
	// Registration bucket: 20 burst, 4/s scenario = 40 per clock second at scale 10.
	arn := e.createTG(t, "tg", "ip", 80)
	mark := e.srv.Recorder().Len()
	reg := func(n int) {
		for i := range n {
			_, _ = e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.0." + string(rune('1'+i%9)))}}})
		}
	}
	reg(21)
	e.clock.Step(100 * time.Millisecond) // 1 s of scenario time → 4 tokens
	reg(5)
	if ok, thr := e.outcomes(mark, "RegisterTargets"); ok != 24 || thr != 2 {
		t.Fatalf("ok=%d throttled=%d, want 24/2", ok, thr)
	}
}

func TestRecorderMetricsAndDrift(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	var mu sync.Mutex
	var seen []fakeaws.Call
	cancel := e.srv.Recorder().Subscribe(func(c fakeaws.Call) { mu.Lock(); seen = append(seen, c); mu.Unlock() })
	var stream bytes.Buffer
	stop := e.srv.Recorder().StreamTo(&stream)
	arn := e.createTG(t, "tg", "ip", 80)
	must[*elb.RegisterTargetsOutput](t)(e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn),
		Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.0.7"), Port: aws.Int32(81)}, {Id: aws.String("10.0.0.8")}}}))
	sg := must[fakeaws.SecurityGroup](t)(e.srv.CreateSecurityGroup("g", "d", ""))
	must[*ec2.AuthorizeSecurityGroupIngressOutput](t)(e.ec2.AuthorizeSecurityGroupIngress(ctx, &ec2.AuthorizeSecurityGroupIngressInput{GroupId: aws.String(sg.ID), IpPermissions: []ec2types.IpPermission{tcp(80, "10.0.0.0/16")}}))
	if err := e.srv.RemoveTarget(arn, fakeaws.Target{ID: "10.0.0.8"}); err != nil {
		t.Fatal(err)
	}
	if err := e.srv.RevokeIngress(sg.ID, fakeaws.Rule{Protocol: "6", FromPort: 80, ToPort: 80, CIDR: "10.0.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	cancel()
	stop()
	calls := e.srv.Recorder().Calls()
	if len(calls) != 5 || len(seen) != 5 {
		t.Fatalf("calls=%d seen=%d", len(calls), len(seen))
	}
	reg := calls[1]
	if reg.Operation != "RegisterTargets" || reg.TargetGroupARN != arn || len(reg.Targets) != 2 || reg.Targets[0] != (fakeaws.Target{ID: "10.0.0.7", Port: 81}) ||
		reg.Targets[1] != (fakeaws.Target{ID: "10.0.0.8"}) || reg.Outcome != "ok" || reg.RequestID == "" || reg.Service != "elbv2" {
		t.Fatalf("register call %+v", reg)
	}
	if calls[2].SecurityGroupID != sg.ID || calls[3].Service != fakeaws.ServiceAdmin || calls[4].Operation != "RevokeIngress" {
		t.Fatalf("calls %+v", calls[2:])
	}
	lines := strings.Split(strings.TrimSpace(stream.String()), "\n")
	var decoded fakeaws.Call
	if len(lines) != 5 || json.Unmarshal([]byte(lines[1]), &decoded) != nil || decoded.Targets[0].Port != 81 {
		t.Fatalf("stream: %q", stream.String())
	}
	if ths, _ := e.srv.Targets(arn); len(ths) != 1 {
		t.Fatalf("drift remove: %+v", ths)
	}
	if g, _ := e.srv.SecurityGroup(sg.ID); len(g.Ingress) != 0 {
		t.Fatalf("drift revoke: %+v", g.Ingress)
	}
	// Metrics on the private registry.
	n, err := testutil.GatherAndCount(e.srv.Gatherer(), "fakeaws_requests_total")
	if err != nil || n != 3 {
		t.Fatalf("requests_total series = %d, %v", n, err)
	}
	if err := e.srv.SetProfile(fakeaws.ProfileAWSDocumented); err != nil {
		t.Fatal(err)
	}
	e.srv.SetLimit("DescribeVpcs", 0, 0)
	_, err = e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	wantCode(t, err, "RequestLimitExceeded")
	if err := testutil.GatherAndCompare(e.srv.Gatherer(), strings.NewReader(`
# HELP fakeaws_throttled_requests_total Requests rejected by a token bucket.
# TYPE fakeaws_throttled_requests_total counter
fakeaws_throttled_requests_total{operation="DescribeVpcs",service="ec2"} 1
`), "fakeaws_throttled_requests_total"); err != nil {
		t.Fatal(err)
	}
	if n, _ := testutil.GatherAndCount(e.srv.Gatherer(), "fakeaws_throttle_bucket_tokens"); n == 0 {
		t.Fatal("no bucket gauges")
	}
}

func adminDo(t *testing.T, e *env, method, path, body string, auth bool) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, e.http.URL+path, strings.NewReader(body))
	if auth {
		req.Header.Set(fakeaws.AdminAccessKeyHeader, testKey)
		req.Header.Set(fakeaws.AdminSecretKeyHeader, testSecret)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, readAll(t, resp)
}

func TestAdminHTTP(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	if code, _ := adminDo(t, e, "GET", "/_restartsim/calls", "", false); code != 403 {
		t.Fatalf("unauthenticated admin: %d", code)
	}
	for _, c := range []struct{ path, body string }{
		{"/_restartsim/seed/vpc", `{"id":"vpc-admin","cidrs":["172.16.0.0/16"]}`},
		{"/_restartsim/seed/instance", `{"id":"i-0000000000000000a","privateIp":"10.0.5.5","availabilityZone":"us-west-2a"}`},
		{"/_restartsim/seed/eni", `{"id":"eni-admin","privateIps":["10.0.6.6"]}`},
		{"/_restartsim/profile", `{"name":"aws-2026"}`},
		{"/_restartsim/limit", `{"operation":"DescribeVpcs","rate":1,"burst":1}`},
		{"/_restartsim/latency", `{"operation":"*","base":"0s","jitter":"0s"}`},
		{"/_restartsim/errors", `{"operation":"CreateTags","rate":0.5,"code":"InternalFailure"}`},
		{"/_restartsim/outage", `{"duration":"1s","services":["ec2"]}`},
		{"/_restartsim/health-timing", `{"healthyAfter":"1s","deregistrationDelay":"2s"}`},
	} {
		if code, body := adminDo(t, e, "POST", c.path, c.body, true); code != 200 {
			t.Fatalf("%s: %d %s", c.path, code, body)
		}
	}
	if e.srv.Profile() != fakeaws.ProfileAWS2026 || len(e.srv.Instances()) != 1 || len(e.srv.VPCs()) != 2 {
		t.Fatal("admin changes not applied")
	}
	if code, _ := adminDo(t, e, "POST", "/_restartsim/profile", `{"name":"nope"}`, true); code != 400 {
		t.Fatalf("bad profile: %d", code)
	}
	_, _ = e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	code, body := adminDo(t, e, "GET", "/_restartsim/calls", "", true)
	var calls []fakeaws.Call
	if code != 200 || json.Unmarshal([]byte(body), &calls) != nil || len(calls) != 1 || calls[0].ErrorCode != "Unavailable" {
		t.Fatalf("calls: %d %s", code, body)
	}
	if code, body := adminDo(t, e, "GET", "/_restartsim/metrics", "", true); code != 200 || !strings.Contains(body, "fakeaws_requests_total") {
		t.Fatalf("metrics: %d", code)
	}
	if code, body := adminDo(t, e, "GET", "/_restartsim/state", "", true); code != 200 || !strings.Contains(body, "vpc-admin") {
		t.Fatalf("state: %d %s", code, body)
	}
	arn := e.createTG(t, "tg", "ip", 80)
	e.srv.ClearOutages()
	must[*elb.RegisterTargetsOutput](t)(e.elb.RegisterTargets(ctx, &elb.RegisterTargetsInput{TargetGroupArn: aws.String(arn), Targets: []elbtypes.TargetDescription{{Id: aws.String("10.0.0.9")}}}))
	if code, body := adminDo(t, e, "POST", "/_restartsim/drift/remove-target", `{"targetGroupArn":"`+arn+`","target":{"id":"10.0.0.9"}}`, true); code != 200 {
		t.Fatalf("drift: %d %s", code, body)
	}
	if code, _ := adminDo(t, e, "GET", "/_restartsim/targets?arn="+arn, "", true); code != 200 {
		t.Fatal("targets")
	}
	// Streaming endpoint delivers new calls as JSON lines.
	req, _ := http.NewRequest("GET", e.http.URL+"/_restartsim/calls/stream", nil)
	req.Header.Set(fakeaws.AdminAccessKeyHeader, testKey)
	req.Header.Set(fakeaws.AdminSecretKeyHeader, testSecret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, _ = e.elb.DescribeTargetGroups(ctx, &elb.DescribeTargetGroupsInput{})
	line := make([]byte, 4096)
	n, _ := io.ReadAtLeast(resp.Body, line, 10)
	if !strings.Contains(string(line[:n]), "DescribeTargetGroups") {
		t.Fatalf("stream: %q", line[:n])
	}
}

func TestS3PutGet(t *testing.T) {
	e := newEnv(t, fakeaws.Options{})
	client := s3.NewFromConfig(e.cfg, func(o *s3.Options) { o.UsePathStyle = true })
	must[*s3.CreateBucketOutput](t)(client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String("artifacts")}))
	must[*s3.PutObjectOutput](t)(client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("artifacts"), Key: aws.String("runs/1/results.json"), Body: strings.NewReader(`{"ok":true}`)}))
	out := must[*s3.GetObjectOutput](t)(client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("artifacts"), Key: aws.String("runs/1/results.json")}))
	b, _ := io.ReadAll(out.Body)
	out.Body.Close()
	if string(b) != `{"ok":true}` {
		t.Fatalf("got %q", b)
	}
	bad := s3.NewFromConfig(clientConfig(e.http.URL, testKey, "wrong"), func(o *s3.Options) { o.UsePathStyle = true })
	_, err := bad.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("artifacts"), Key: aws.String("runs/1/results.json")})
	if httpStatus(err) != 403 {
		t.Fatalf("wrong secret on S3: %v", err)
	}
	ops := map[string]bool{}
	for _, c := range e.srv.Recorder().Calls() {
		if c.Service == fakeaws.ServiceS3 {
			ops[c.Operation+":"+c.Outcome] = true
		}
	}
	if !ops["PutObject:ok"] || !ops["GetObject:ok"] || !ops["GetObject:error"] {
		t.Fatalf("recorded S3 ops %v", ops)
	}
}

// An unlimited bucket has infinite tokens; /state must still be valid JSON.
func TestAdminStateWithUnlimitedBuckets(t *testing.T) {
	e := newEnv(t, fakeaws.Options{Profile: fakeaws.ProfileUnlimited})
	_, _ = e.ec2.DescribeVpcs(ctx, &ec2.DescribeVpcsInput{})
	if len(e.srv.Buckets()) == 0 {
		t.Fatal("no bucket used")
	}
	code, body := adminDo(t, e, "GET", "/_restartsim/state", "", true)
	var state struct {
		Buckets []struct {
			Key       string   `json:"key"`
			Tokens    *float64 `json:"tokens"`
			Unlimited bool     `json:"unlimited"`
		} `json:"buckets"`
	}
	if code != 200 || json.Unmarshal([]byte(body), &state) != nil || len(state.Buckets) == 0 {
		t.Fatalf("state: %d %q", code, body)
	}
	if b := state.Buckets[0]; !b.Unlimited || b.Tokens != nil {
		t.Fatalf("unlimited bucket encoded as %+v", b)
	}
}

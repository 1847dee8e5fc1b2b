package objects

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	elb "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/fakeaws"
)

// TestWidgetsThroughEnvtestAndFakeAWS creates 50 Widgets, plays their controller by hand (a target group per
// Widget through the ELBv2 API, then status), waits for them to be ready, patches 5 and sees each change
// applied once AWS shows it.
func TestWidgetsThroughEnvtestAndFakeAWS(t *testing.T) {
	env := cluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := env.Client
	run := Env{RunID: "envtest", Region: "us-west-2", ClusterName: "c", Namespaces: []string{"objects-a", "objects-b", "objects-c"}}
	for _, ns := range run.Namespaces {
		if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	srv, api := startFakeAWS(t)
	run.VpcID = srv.DefaultVPCID()

	f := compile(t, widgets(50))
	if err := createAll(ctx, f, c, run, CreateOptions{Concurrency: 8}); err != nil {
		t.Fatal(err)
	}
	objs, err := listObjects(ctx, f, c, run)
	if err != nil {
		t.Fatal(err)
	}
	if st := f.Check(objs, nil); len(objs) != 50 || st.Groups[0].Present != 50 || st.Groups[0].Ready != 0 {
		t.Fatalf("after create: %d objects, status %+v; want 50 present, none ready", len(objs), st.Groups[0])
	}

	// The Widgets' controller: a target group each, then the ARN and ACK's synced condition in the status.
	for _, u := range objs {
		s := u.Object["spec"].(map[string]any)
		out, err := api.CreateTargetGroup(ctx, &elb.CreateTargetGroupInput{
			Name: aws.String(s["name"].(string)), Protocol: elbtypes.ProtocolEnumHttp, Port: aws.Int32(int32(s["port"].(int64))),
			VpcId: aws.String(run.VpcID), TargetType: elbtypes.TargetTypeEnumIp, HealthCheckPath: aws.String(s["healthCheckPath"].(string)),
		})
		if err != nil {
			t.Fatal(err)
		}
		status := map[string]any{"status": map[string]any{"arn": *out.TargetGroups[0].TargetGroupArn,
			"conditions": []any{map[string]any{"type": "ACK.ResourceSynced", "status": "True"}}}}
		if err := c.Status().Patch(ctx, u, statusPatch(t, status)); err != nil {
			t.Fatal(err)
		}
	}
	waitReady(ctx, t, f, c, run, srv, "widgets", 30*time.Second)
	if st := check(ctx, t, f, c, run, srv); !st.Holds() {
		t.Fatalf("steady state does not hold: %+v", st)
	}

	// Five changes, made while the controller is down; AWS does not show them yet.
	pt, err := f.CompilePatch(Patch{Group: "widgets", Merge: json.RawMessage(`{"spec": {"healthCheckPath": "/v{{.Seq}}"}}`),
		Applied: `aws != null && aws.healthCheck.path == object.spec.healthCheckPath`, Mutations: []string{"ModifyTargetGroup"}}, "timeline[0]")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := pt.Apply(ctx, c, run, PatchOptions{Count: 5, Rand: rand.New(rand.NewPCG(1, 2)), FirstSeq: 1, AWS: srv})
	if err != nil || len(changes) != 5 {
		t.Fatalf("Apply: %d changes, %v", len(changes), err)
	}
	snap, _ := TakeSnapshot(srv, f.AWSKinds()...)
	for _, ch := range changes {
		if ok, _ := ch.Applied(snap); ok || ch.ResourceID == "" {
			t.Fatalf("change to %s applied before AWS shows it, or without an ARN (%q)", ch.Key, ch.ResourceID)
		}
	}
	if st := check(ctx, t, f, c, run, srv); len(st.Violations) != 5 {
		t.Fatalf("violations with 5 changes pending: %v", st.Violations)
	}

	// The controller applies them; each change shows in AWS, and its mutation is in the call log.
	mark := srv.Recorder().Len()
	for _, ch := range changes {
		path := ch.Desired.Object["spec"].(map[string]any)["healthCheckPath"].(string)
		if _, err := api.ModifyTargetGroup(ctx, &elb.ModifyTargetGroupInput{TargetGroupArn: aws.String(ch.ResourceID), HealthCheckPath: aws.String(path)}); err != nil {
			t.Fatal(err)
		}
	}
	snap, _ = TakeSnapshot(srv, f.AWSKinds()...)
	calls := srv.Recorder().Since(mark)
	for _, ch := range changes {
		if ok, err := ch.Applied(snap); !ok {
			t.Errorf("change to %s not applied: %v (%s)", ch.Key, err, ch.Explain(snap))
		}
		n := 0
		for _, call := range calls {
			if ch.IsMutation(call) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("change to %s: %d calls are its mutation, want 1", ch.Key, n)
		}
	}
	if st := check(ctx, t, f, c, run, srv); !st.Holds() {
		t.Errorf("steady state after the changes: %+v", st)
	}
}

func check(ctx context.Context, t *testing.T, f *CompiledGroups, c client.Reader, run Env, aws AWSState) Status {
	t.Helper()
	objs, err := listObjects(ctx, f, c, run)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := TakeSnapshot(aws, f.AWSKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	return f.Check(objs, snap)
}

func statusPatch(t *testing.T, v any) client.Patch {
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return client.RawPatch(k8stypes.MergePatchType, data)
}

// startFakeAWS serves an in-process fakeaws (no throttling) to an ELBv2 client.
func startFakeAWS(t *testing.T) (*fakeaws.Server, *elb.Client) {
	srv, err := fakeaws.New(fakeaws.Options{Profile: fakeaws.ProfileUnlimited, AccessKeyID: "AKIDTEST", SecretAccessKey: "secret"})
	if err != nil {
		t.Fatal(err)
	}
	h := httptest.NewServer(srv)
	t.Cleanup(h.Close)
	return srv, elb.NewFromConfig(aws.Config{Region: "us-west-2", BaseEndpoint: aws.String(h.URL),
		Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")})
}

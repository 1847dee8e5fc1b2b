package observe

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	elbv2 "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2"
	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

// groupedOIDCObjects are oidcObjects in the Ingress group "shop-g", with the given client secret
// and healthcheck path.
func groupedOIDCObjects(secret, healthPath string) LoadBalancerObjects {
	o := oidcObjects(secret)
	o.Ingresses[0].Annotations["alb.ingress.kubernetes.io/group.name"] = "shop-g"
	o.Ingresses[0].Annotations["alb.ingress.kubernetes.io/healthcheck-path"] = healthPath
	return o
}

// Each kind of expectation holds once AWS shows it and not before: the forward rule's target group
// is the backend's port and holds exactly the targets, the rule authenticates with the current
// client secret, the backend's target group checks the new path.
func TestExpectationsAgainstFakeAWS(t *testing.T) {
	ctx := context.Background()
	srv, elb, dep := startDeployer(t)
	res := deployObjects(t, dep, groupedOIDCObjects("s3cret-1", "/healthz"))
	tgARN := res.TargetGroupARNs[lbmodel.IngressTargetGroupID("shop", "web", "cart", intstr.FromInt32(80))]
	if tgARN == "" {
		t.Fatalf("no target group for shop/web-cart:80 in %v", res.TargetGroupARNs)
	}
	ing := types.NamespacedName{Namespace: "shop", Name: "web"}
	cart := types.NamespacedName{Namespace: "shop", Name: "cart"}
	pods := []tgbexpect.Target{{ID: "10.0.0.1", Port: 8080}, {ID: "10.0.0.2", Port: 8080}}
	forward := workload.Expectation{Check: workload.ExpectForward, Group: "shop-g", Ingress: ing, Host: "shop.example.com",
		Path: "/cart", Service: cart, ServicePort: 80, Targets: pods}
	oidc := workload.Expectation{Check: workload.ExpectOIDCClientSecret, Group: "shop-g", Ingress: ing, Host: "shop.example.com",
		Path: "/cart", Value: "s3cret-2"}
	health := workload.Expectation{Check: workload.ExpectHealthCheckPath, Group: "shop-g", Ingress: ing, Service: cart,
		ServicePort: 80, Value: "/ready"}
	holds := func(e workload.Expectation) bool { return newLBSnapshot(srv, srv.Targets, "sim").holds(e) }

	if holds(forward) {
		t.Fatal("forward holds before any target is registered")
	}
	var targets []elbtypes.TargetDescription
	for _, p := range pods {
		targets = append(targets, elbtypes.TargetDescription{Id: aws.String(p.ID), Port: aws.Int32(p.Port)})
	}
	if _, err := elb.RegisterTargets(ctx, &elbv2.RegisterTargetsInput{TargetGroupArn: aws.String(tgARN), Targets: targets}); err != nil {
		t.Fatal(err)
	}
	if !holds(forward) {
		t.Fatal("forward does not hold with the targets registered")
	}
	for name, e := range map[string]workload.Expectation{
		"another service port": func() workload.Expectation { e := forward; e.ServicePort = 81; return e }(),
		"another target":       func() workload.Expectation { e := forward; e.Targets = pods[:1]; return e }(),
		"another group":        func() workload.Expectation { e := forward; e.Group = "other"; return e }(),
		"another path":         func() workload.Expectation { e := forward; e.Path = "/r1"; return e }(),
	} {
		if holds(e) {
			t.Errorf("forward holds for %s", name)
		}
	}
	if holds(oidc) || holds(health) {
		t.Fatalf("before the redeploy: oidc %v, health %v, want neither", holds(oidc), holds(health))
	}
	deployObjects(t, dep, groupedOIDCObjects("s3cret-2", "/ready"))
	if !holds(oidc) || !holds(health) {
		t.Fatalf("after the redeploy: oidc %v, health %v, want both", holds(oidc), holds(health))
	}
	if e := oidc; func() bool { e.Value = "s3cret-1"; return holds(e) }() {
		t.Fatal("the old client secret still holds after the rotation")
	}
}

// A tracked change is seen applied once every one of its expectations holds, and at that poll.
func TestIngressAppliedSeesAChangeWhenAllItsFactsHold(t *testing.T) {
	srv, _, dep := startDeployer(t)
	deployObjects(t, dep, groupedOIDCObjects("s3cret-1", "/healthz"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a := StartIngressApplied(ctx, backend.Local{Server: srv}, "sim", 5*time.Millisecond)
	ing := types.NamespacedName{Namespace: "shop", Name: "web"}
	cart := types.NamespacedName{Namespace: "shop", Name: "cart"}
	secret := func(v string) workload.Expectation {
		return workload.Expectation{Check: workload.ExpectOIDCClientSecret, Group: "shop-g", Ingress: ing, Host: "shop.example.com", Path: "/cart", Value: v}
	}
	a.Track("rotate", ing, []workload.Expectation{
		secret("s3cret-2"),
		{Check: workload.ExpectHealthCheckPath, Group: "shop-g", Ingress: ing, Service: cart, ServicePort: 80, Value: "/ready"},
	})
	a.Track("nothing", ing, nil)
	// seenByAPoll tracks a probe, on an Ingress of its own, that holds once AWS shows the client secret v,
	// and waits until a poll saw it: that poll judged "rotate" on the same state.
	probes := 0
	seenByAPoll := func(v string) {
		t.Helper()
		probes++
		id := fmt.Sprintf("probe-%d", probes)
		a.Track(id, types.NamespacedName{Namespace: "shop", Name: id}, []workload.Expectation{secret(v)})
		testwait.Until(t, 5*time.Second, "a poll that saw client secret "+v, func() bool { _, ok := a.SeenAt(id); return ok })
	}
	seenByAPoll("s3cret-1")
	if _, ok := a.SeenAt("rotate"); ok {
		t.Fatal("seen applied before AWS shows it")
	}
	deployObjects(t, dep, groupedOIDCObjects("s3cret-2", "/healthz")) // one of its two facts
	seenByAPoll("s3cret-2")
	if _, ok := a.SeenAt("rotate"); ok {
		t.Fatal("seen applied with only the client secret rotated")
	}
	before := time.Now()
	deployObjects(t, dep, groupedOIDCObjects("s3cret-2", "/ready"))
	testwait.Until(t, 5*time.Second, "the change seen applied", func() bool { _, ok := a.SeenAt("rotate"); return ok })
	if at, _ := a.SeenAt("rotate"); at.Before(before) {
		t.Fatalf("seen at %v, before the deploy that applied it (%v)", at, before)
	}
	if _, ok := a.SeenAt("nothing"); ok {
		t.Fatal("a change without expectations was seen applied")
	}
}

// An earlier change whose facts a later change of the same Ingress made untrue (the healthcheck
// path of the backend's old port) is applied once the later one is; another Ingress's is not.
func TestIngressAppliedCountsASupersededChangeWithTheLaterOne(t *testing.T) {
	srv, _, dep := startDeployer(t)
	deployObjects(t, dep, groupedOIDCObjects("s3cret-1", "/healthz"))
	a := &IngressApplied{aws: srv, targets: srv.Targets, cluster: "sim", pending: map[string]trackedChange{}, seen: map[string]time.Time{}}
	ing := types.NamespacedName{Namespace: "shop", Name: "web"}
	cart := types.NamespacedName{Namespace: "shop", Name: "cart"}
	never := workload.Expectation{Check: workload.ExpectHealthCheckPath, Group: "shop-g", Ingress: ing, Service: cart, ServicePort: 81, Value: "/ready"}
	a.Track("earlier", ing, []workload.Expectation{never})
	a.Track("elsewhere", types.NamespacedName{Namespace: "shop", Name: "api"}, []workload.Expectation{never})
	a.Track("later", ing, []workload.Expectation{{Check: workload.ExpectOIDCClientSecret, Group: "shop-g", Ingress: ing,
		Host: "shop.example.com", Path: "/cart", Value: "s3cret-1"}})
	now := time.Now()
	a.poll(func() time.Time { return now })
	for id, want := range map[string]bool{"earlier": true, "later": true, "elsewhere": false} {
		if at, ok := a.SeenAt(id); ok != want || ok && !at.Equal(now) {
			t.Errorf("%s: seen %v at %v, want seen %v at the poll", id, ok, at, want)
		}
	}
}

package lb_test

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/controller/lb"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

var shopID = lbmodel.StackID{Kind: lbmodel.KindIngress, Name: "shop"}

// deployShop creates the shop group and waits until the controller deployed it: one ALB, one
// HTTPS listener, a rule per member authenticating with the Secret's client secret, a target
// group and a bound TargetGroupBinding per backend.
func deployShop(t *testing.T, ns string, opts controller.Options) *running {
	t.Helper()
	want := shopGroup(t, ns)
	r := startController(t, ns, opts)
	waitDeployed(t, ns, opts.ModelCheckpoint == controller.ModelCheckpointModel, "cart", "catalog")
	lbs := clusterLoadBalancers(opts.ClusterName)
	if len(lbs) != 1 || lbs[0].Type != lbmodel.TypeApplication {
		t.Fatalf("load balancers of the cluster = %+v, want one application load balancer", lbs)
	}
	ls, err := aws_.Listeners(lbs[0].ARN)
	if err != nil || len(ls) != 1 || ls[0].Port != 443 || ls[0].Protocol != "HTTPS" {
		t.Fatalf("listeners = %+v (%v), want HTTPS:443", ls, err)
	}
	if got := oidcClientSecrets(t, opts.ClusterName); !slices.Equal(got, []string{"secret-1", "secret-1"}) {
		t.Fatalf("authenticate-oidc client secrets = %v, want secret-1 on both rules", got)
	}
	tgs := clusterTargetGroups(opts.ClusterName)
	if len(tgs) != 2 {
		t.Fatalf("target groups of the cluster = %d, want 2", len(tgs))
	}
	tgbs := stackTGBs(t, ns, shopID)
	if len(tgbs) != 2 {
		t.Fatalf("bindings of the stack = %d, want 2", len(tgbs))
	}
	for _, tgb := range tgbs {
		if !slices.ContainsFunc(tgs, func(tg fakeaws.TargetGroup) bool { return tg.ARN == tgb.Spec.TargetGroupARN }) {
			t.Fatalf("binding %s points at %s, not a target group of the stack", tgb.Name, tgb.Spec.TargetGroupARN)
		}
		if len(tgb.OwnerReferences) != 1 || tgb.OwnerReferences[0].Name != tgb.Spec.ServiceRef.Name {
			t.Fatalf("binding %s owners = %+v, want the Ingress naming %s", tgb.Name, tgb.OwnerReferences, tgb.Spec.ServiceRef.Name)
		}
		arn, svc := tgb.Spec.TargetGroupARN, tgb.Spec.ServiceRef.Name
		testwait.Until(t, 30*time.Second, "targets of "+svc+" registered", func() bool { return sameSet(liveTargets(t, arn), want[svc]...) })
	}
	return r
}

func TestLBIngressGroupDeployAndDelete(t *testing.T) {
	ns := newNamespace(t)
	opts := lbTestOptions(ns, controller.ModelCheckpointModel)
	deployShop(t, ns, opts)
	ctx := context.Background()

	// An Ingress of another class naming the group is no member.
	foreign := groupIngress(ns, "foreign", "cart", 3)
	foreign.Spec.IngressClassName = ptr.To("nginx")
	create(t, foreign)

	// One member goes: its rule and binding go, the group's load balancer stays.
	cart := &networkingv1.Ingress{}
	if err := k8s.Get(ctx, clientKey(ns, "cart"), cart); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Delete(ctx, cart); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, "cart released", func() bool {
		return k8s.Get(ctx, clientKey(ns, "cart"), &networkingv1.Ingress{}) != nil && len(stackTGBs(t, ns, shopID)) == 1 &&
			len(clusterTargetGroups(opts.ClusterName)) == 1
	})
	if lbs := clusterLoadBalancers(opts.ClusterName); len(lbs) != 1 {
		t.Fatalf("load balancers after one member left = %d, want 1", len(lbs))
	}
	if got := oidcClientSecrets(t, opts.ClusterName); len(got) != 1 {
		t.Fatalf("rules after one member left = %d, want 1", len(got))
	}
	if err := k8s.Get(ctx, clientKey(ns, "foreign"), foreign); err != nil {
		t.Fatal(err)
	}
	if len(foreign.Finalizers) != 0 || len(foreign.Status.LoadBalancer.Ingress) != 0 {
		t.Fatalf("the other class's Ingress was taken: finalizers %v, status %+v", foreign.Finalizers, foreign.Status.LoadBalancer)
	}
	// The last member goes: the whole stack goes.
	catalog := &networkingv1.Ingress{}
	if err := k8s.Get(ctx, clientKey(ns, "catalog"), catalog); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Delete(ctx, catalog); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 30*time.Second, "the stack deleted", func() bool {
		return k8s.Get(ctx, clientKey(ns, "catalog"), &networkingv1.Ingress{}) != nil && len(stackTGBs(t, ns, shopID)) == 0 &&
			len(clusterLoadBalancers(opts.ClusterName)) == 0 && len(clusterTargetGroups(opts.ClusterName)) == 0
	})
}

// restartShop deploys the shop with opts, stops the controller, runs whileDown, restarts it and
// returns the new instance and the recorder position at the restart.
func restartShop(t *testing.T, opts controller.Options, whileDown func(ns string)) (string, *running, int) {
	t.Helper()
	ns := newNamespace(t)
	opts = lbTestOptions(ns, opts.ModelCheckpoint)
	first := deployShop(t, ns, opts)
	first.stop()
	if whileDown != nil {
		whileDown(ns)
	}
	n := aws_.Recorder().Len()
	return ns, startController(t, ns, opts), n
}

func ingressCounter(t *testing.T, r *running, result string) float64 {
	return counter(t, r.reg, "lb_model_reconciles_total", map[string]string{"kind": "ingress", "result": result})
}

func TestLBModelCheckpointSkipsUnchangedGroupAfterRestart(t *testing.T) {
	ns, r, n := restartShop(t, controller.Options{ModelCheckpoint: controller.ModelCheckpointModel}, nil)
	testwait.Until(t, 30*time.Second, "the checkpoint skip", func() bool {
		return counter(t, r.reg, "lb_model_checkpoint_skips_total", map[string]string{"kind": "ingress"}) >= 1
	})
	waitStackBindingsReconciled(t, r, ns, shopID)
	if ops := loadBalancerOperations(operationsSince(n)); len(ops) > 0 {
		t.Fatalf("restart of an unchanged group called AWS: %v", ops)
	}
	if d := ingressCounter(t, r, lb.ResultDeployed); d != 0 {
		t.Fatalf("deployed reconciles after the restart = %v, want 0", d)
	}
}

// rotateSecret replaces the OIDC client secret while the controller is down.
func rotateSecret(t *testing.T) func(ns string) {
	return func(ns string) {
		sec := &corev1.Secret{}
		if err := k8s.Get(context.Background(), clientKey(ns, oidcSecretName), sec); err != nil {
			t.Fatal(err)
		}
		sec.Data["clientSecret"] = []byte("secret-2")
		if err := k8s.Update(context.Background(), sec); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLBSecretRotatedWhileRunningIsApplied(t *testing.T) {
	ns := newNamespace(t)
	opts := lbTestOptions(ns, controller.ModelCheckpointModel)
	deployShop(t, ns, opts)
	rotateSecret(t)(ns)
	testwait.Until(t, 30*time.Second, "the rotated client secret on both rules", func() bool {
		return slices.Equal(oidcClientSecrets(t, opts.ClusterName), []string{"secret-2", "secret-2"})
	})
}

func TestLBModelCheckpointAppliesSecretRotatedWhileDown(t *testing.T) {
	ns, _, _ := restartShop(t, controller.Options{ModelCheckpoint: controller.ModelCheckpointModel}, rotateSecret(t))
	cluster := lbTestOptions(ns, "").ClusterName
	testwait.Until(t, 30*time.Second, "the rotated client secret on both rules", func() bool {
		return slices.Equal(oidcClientSecrets(t, cluster), []string{"secret-2", "secret-2"})
	})
}

func TestLBSecretBlindMutantMissesSecretRotatedWhileDown(t *testing.T) {
	ns := newNamespace(t)
	o := lbTestOptions(ns, controller.ModelCheckpointModel)
	o.Mutant, o.AllowMutants = controller.MutantSecretBlindModel, true
	first := deployShop(t, ns, o)
	first.stop()
	rotateSecret(t)(ns)
	n := aws_.Recorder().Len()
	r := startController(t, ns, o)
	testwait.Until(t, 30*time.Second, "the (wrong) checkpoint skip", func() bool {
		return counter(t, r.reg, "lb_model_checkpoint_skips_total", map[string]string{"kind": "ingress"}) >= 1
	})
	waitStackBindingsReconciled(t, r, ns, shopID)
	if got := oidcClientSecrets(t, o.ClusterName); !slices.Equal(got, []string{"secret-1", "secret-1"}) {
		t.Fatalf("client secrets with the secret-blind mutant = %v, want the stale secret-1", got)
	}
	if m := countOperation(operationsSince(n), "ModifyRule"); m != 0 {
		t.Fatalf("the secret-blind mutant modified %d rules", m)
	}
}

func TestLBNoModelCheckpointRedeploysAfterRestart(t *testing.T) {
	_, r, n := restartShop(t, controller.Options{ModelCheckpoint: controller.ModelCheckpointNone}, nil)
	testwait.Until(t, 30*time.Second, "a redeploy after the restart", func() bool { return ingressCounter(t, r, lb.ResultDeployed) >= 1 })
	ops := operationsSince(n)
	if countOperation(ops, "DescribeLoadBalancers") == 0 || countOperation(ops, "DescribeRules") == 0 {
		t.Fatalf("restart without a model checkpoint made no load balancer Describe calls: %v", ops)
	}
	if s := counter(t, r.reg, "lb_model_checkpoint_skips_total", map[string]string{"kind": "ingress"}); s != 0 {
		t.Fatalf("checkpoint skips without a model checkpoint = %v", s)
	}
}

// TestLBBackendServiceChangeReplacesBinding: a backend Service's new target port gives its target
// group a new name, so the old binding is deleted (deregistering its targets) before the deploy
// replaces the target group, and a new binding registers the targets in the new one.
func TestLBBackendServiceChangeReplacesBinding(t *testing.T) {
	ns := newNamespace(t)
	opts := lbTestOptions(ns, controller.ModelCheckpointModel)
	deployShop(t, ns, opts)
	ctx := context.Background()
	bindingOf := func(svc string) (string, string) {
		for _, tgb := range stackTGBs(t, ns, shopID) {
			if tgb.Spec.ServiceRef.Name == svc && tgb.DeletionTimestamp.IsZero() {
				return tgb.Name, tgb.Spec.TargetGroupARN
			}
		}
		return "", ""
	}
	oldName, oldARN := bindingOf("cart")
	svc := &corev1.Service{}
	if err := k8s.Get(ctx, clientKey(ns, "cart"), svc); err != nil {
		t.Fatal(err)
	}
	svc.Spec.Ports[0].TargetPort = intstr.FromInt32(8081)
	if err := k8s.Update(ctx, svc); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, 60*time.Second, "the cart binding replaced", func() bool {
		name, arn := bindingOf("cart")
		return name != "" && name != oldName && arn != oldARN && len(stackTGBs(t, ns, shopID)) == 2
	})
	_, arn := bindingOf("cart")
	tgs := clusterTargetGroups(opts.ClusterName)
	i := slices.IndexFunc(tgs, func(tg fakeaws.TargetGroup) bool { return tg.ARN == arn })
	if len(tgs) != 2 || i < 0 || tgs[i].Port != 8081 {
		t.Fatalf("target groups after the change = %+v, want two, the cart one on port 8081", tgs)
	}
	testwait.Until(t, 30*time.Second, "the cart targets in the new target group", func() bool { return len(liveTargets(t, arn)) == 2 })
}

package workload_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/sim/workload"
)

// TestIngressChanges: each Ingress-side change lands in the cluster and records what AWS must show.
func TestIngressChanges(t *testing.T) {
	k8s := cluster(t).Client
	tf := createFleet(t, ingressFleetSpec(), 12)
	ctx := context.Background()
	oidc := tf.ChooseIngresses(seeded(1), 1, func(i workload.IngressInfo) bool { return i.OIDCClientSecret != "" })
	plain := tf.ChooseIngresses(seeded(1), 1, func(i workload.IngressInfo) bool { return i.OIDCClientSecret == "" })
	if len(oidc) != 1 || len(plain) != 1 {
		t.Fatalf("no OIDC or plain Ingress to change: %v %v", oidc, plain)
	}
	getIngress := func(key types.NamespacedName) *networkingv1.Ingress {
		var ing networkingv1.Ingress
		if err := k8s.Get(ctx, key, &ing); err != nil {
			t.Fatal(err)
		}
		return &ing
	}

	t.Run("ingress-rule", func(t *testing.T) {
		key := plain[0]
		ch, err := tf.AddIngressRule(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		paths := getIngress(key).Spec.Rules[0].HTTP.Paths
		if ch.Kind != workload.ChangeIngressRule || ch.Ingress != key || len(ch.Expect) != 1 || len(paths) != 3 {
			t.Fatalf("change %+v, paths %+v", ch, paths)
		}
		e, p := ch.Expect[0], paths[2]
		if e.Check != workload.ExpectForward || e.Path != p.Path || e.Service.Name != p.Backend.Service.Name ||
			e.ServicePort != p.Backend.Service.Port.Number || len(e.Targets) != 2 || e.Host == "" || e.Group == "" {
			t.Fatalf("expectation %+v for path %+v", e, p)
		}
	})

	t.Run("backend-port", func(t *testing.T) {
		key := plain[0]
		ch, err := tf.ChangeBackendPort(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		if len(ch.Expect) == 0 || ch.Expect[0].ServicePort != 81 {
			t.Fatalf("change %+v", ch)
		}
		var svc corev1.Service
		if err := k8s.Get(ctx, ch.Expect[0].Service, &svc); err != nil || svc.Spec.Ports[0].Port != 81 {
			t.Fatalf("service %v: %+v", err, svc.Spec.Ports)
		}
		for _, p := range getIngress(key).Spec.Rules[0].HTTP.Paths {
			if p.Backend.Service.Name == svc.Name && p.Backend.Service.Port.Number != 81 {
				t.Fatalf("path %s still references port %d", p.Path, p.Backend.Service.Port.Number)
			}
		}
	})

	t.Run("backend-target-port", func(t *testing.T) {
		ch, err := tf.ChangeBackendTargetPort(ctx, plain[0])
		if err != nil {
			t.Fatal(err)
		}
		e := ch.Expect[0]
		var slice discoveryv1.EndpointSlice
		if err := k8s.Get(ctx, types.NamespacedName{Namespace: e.Service.Namespace, Name: e.Service.Name + "-sim"}, &slice); err != nil {
			t.Fatal(err)
		}
		var svc corev1.Service
		if err := k8s.Get(ctx, e.Service, &svc); err != nil {
			t.Fatal(err)
		}
		if *slice.Ports[0].Port != 8081 || svc.Spec.Ports[0].TargetPort.IntValue() != 8081 || e.Targets[0].Port != 8081 {
			t.Fatalf("slice port %d, service %+v, expectation %+v", *slice.Ports[0].Port, svc.Spec.Ports, e)
		}
	})

	t.Run("secret-content", func(t *testing.T) {
		before, _ := tf.Ingress(oidc[0])
		ch, err := tf.RotateOIDCSecret(ctx, oidc[0])
		if err != nil {
			t.Fatal(err)
		}
		var secret corev1.Secret
		if err := k8s.Get(ctx, before.Secrets[1], &secret); err != nil {
			t.Fatal(err)
		}
		got := string(secret.Data[lbmodel.OIDCClientSecretKey])
		if got == before.OIDCClientSecret || len(ch.Expect) != len(before.Paths) {
			t.Fatalf("secret %q (was %q), change %+v", got, before.OIDCClientSecret, ch)
		}
		for _, e := range ch.Expect {
			if e.Check != workload.ExpectOIDCClientSecret || e.Value != got {
				t.Fatalf("expectation %+v, secret now %q", e, got)
			}
		}
		if _, err := tf.RotateOIDCSecret(ctx, plain[0]); !errors.Is(err, workload.ErrUnknownIngress) {
			t.Fatalf("rotating the secret of an Ingress without OIDC: %v", err)
		}
	})

	t.Run("ingress-annotation", func(t *testing.T) {
		ch, err := tf.ChangeHealthCheckPath(ctx, oidc[0])
		if err != nil {
			t.Fatal(err)
		}
		got := getIngress(oidc[0]).Annotations[lbmodel.AnnotationHealthPath]
		if !strings.HasPrefix(got, "/healthz-") || len(ch.Expect) != 2 {
			t.Fatalf("annotation %q, change %+v", got, ch)
		}
		for _, e := range ch.Expect {
			if e.Check != workload.ExpectHealthCheckPath || e.Value != got || e.ServicePort != 80 {
				t.Fatalf("expectation %+v, annotation %q", e, got)
			}
		}
		if info, _ := tf.Ingress(oidc[0]); info.HealthCheckPath != got || getIngress(oidc[0]).Annotations[lbmodel.AnnotationAuthType] != "oidc" {
			t.Fatalf("bookkeeping %q, or the update lost other annotations", info.HealthCheckPath)
		}
	})

	if got := tf.IngressSecrets(oidc[0]); len(got) != 2 || got[1].Name == "" {
		t.Fatalf("secrets of an OIDC Ingress: %v", got)
	}
}

// TestAdoptIngressFleet: the same plan adopts a created Ingress side, and its changes act on it; a
// fleet planned without it does not.
func TestAdoptIngressFleet(t *testing.T) {
	k8s := cluster(t).Client
	tf := createFleet(t, ingressFleetSpec(), 13)
	ctx := context.Background()
	opts := workload.Options{Client: k8s, AWS: tf.aws, Labels: tf.run}
	without := tf.Spec
	without.Ingresses = workload.IngressSpec{}
	if err := workload.Plan(without, seeded(13)).Adopt(ctx, tf.FleetPlan, opts); err == nil {
		t.Fatal("a fleet without Ingresses adopted one with them")
	}
	again := workload.Plan(tf.Spec, seeded(13))
	if err := again.Adopt(ctx, tf.FleetPlan, opts); err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	key := again.ChooseIngresses(seeded(2), 1, nil)[0]
	if _, err := again.AddIngressRule(ctx, key); err != nil {
		t.Fatalf("a change on the adopted Ingress side: %v", err)
	}
}

// TestChangeIngressByKind: every kind the scenario can name reaches its mutation, on the Ingresses
// IngressChangeApplies allows, and an unknown kind is refused.
func TestChangeIngressByKind(t *testing.T) {
	tf := createFleet(t, ingressFleetSpec(), 14)
	ctx := context.Background()
	for _, kind := range []string{workload.ChangeIngressRule, workload.ChangeBackendPort, workload.ChangeBackendTargetPort,
		workload.ChangeSecretContent, workload.ChangeIngressAnnotation} {
		keys := tf.ChooseIngresses(seeded(3), 2, func(i workload.IngressInfo) bool { return workload.IngressChangeApplies(kind, i) })
		if len(keys) == 0 {
			t.Fatalf("%s: no Ingress to change", kind)
		}
		for _, key := range keys {
			ch, err := tf.ChangeIngress(ctx, kind, key)
			if err != nil || ch.Kind != kind || ch.Ingress != key || len(ch.Expect) == 0 {
				t.Fatalf("%s on %s: %+v, %v", kind, key, ch, err)
			}
		}
	}
	key := tf.ChooseIngresses(seeded(3), 1, nil)[0]
	if _, err := tf.ChangeIngress(ctx, "scale", key); err == nil {
		t.Fatal("a TGB change kind was taken for an Ingress change")
	}
	if workload.IngressChangeApplies("scale", workload.IngressInfo{}) {
		t.Fatal("a TGB change kind applies to Ingresses")
	}
}

// TestCleanupDeletesTheRunsIngressClass: the IngressClass the run created carries its labels and goes
// with the run's other objects.
func TestCleanupDeletesTheRunsIngressClass(t *testing.T) {
	k8s := cluster(t).Client
	ctx := context.Background()
	var class networkingv1.IngressClass
	key := types.NamespacedName{Name: workload.IngressClassName}
	if err := k8s.Get(ctx, key, &class); err == nil { // an earlier test's: start from none
		if err := k8s.Delete(ctx, &class); err != nil {
			t.Fatal(err)
		}
	}
	tf := createFleet(t, ingressFleetSpec(), 15)
	if err := k8s.Get(ctx, key, &class); err != nil || class.Labels["restartsim.io/run"] != tf.run["restartsim.io/run"] {
		t.Fatalf("ingressclass %v, labels %v", err, class.Labels)
	}
	if err := tf.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if err := k8s.Get(ctx, key, &class); !apierrors.IsNotFound(err) {
		t.Fatalf("ingressclass after cleanup: %v", err)
	}
}

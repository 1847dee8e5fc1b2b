package lb_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lb"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

// lbTestOptions run the load balancer reconcilers for a cluster named after ns, so that each test's
// deployer only ever sees (and counts) its own stacks in the shared fakeaws.
func lbTestOptions(ns string, mode controller.ModelCheckpointMode) controller.Options {
	o := testOptions(controller.CheckpointAnnotation)
	o.LoadBalancers, o.ModelCheckpoint = true, mode
	o.ClusterName, o.VpcID = "c-"+ns, aws_.DefaultVPCID()
	return o
}

// ensureIngressClass creates the cluster's alb IngressClass once.
func ensureIngressClass(t *testing.T) {
	t.Helper()
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: controller.DefaultIngressClass},
		Spec: networkingv1.IngressClassSpec{Controller: lbmodel.IngressClassController}}
	if err := k8s.Create(context.Background(), class); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
}

const (
	testCertificate = "arn:aws:acm:us-west-2:123456789012:certificate/lb-test"
	oidcSecretName  = "oidc"
)

// groupIngress is a member of group "shop": HTTPS with OIDC authentication (client Secret
// oidcSecretName), path /<svc> forwarding to Service svc with IP targets.
func groupIngress(ns, name, svc string, order int) *networkingv1.Ingress {
	pt := networkingv1.PathTypePrefix
	return &networkingv1.Ingress{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Annotations: map[string]string{
			lbmodel.AnnotationGroupName: "shop", lbmodel.AnnotationGroupOrder: fmt.Sprint(order),
			lbmodel.AnnotationTargetType: "ip", lbmodel.AnnotationListenPorts: `[{"HTTPS":443}]`,
			lbmodel.AnnotationCertificateARN: testCertificate, lbmodel.AnnotationAuthType: "oidc",
			lbmodel.AnnotationAuthIDPOIDC: `{"issuer":"https://idp.example.com","authorizationEndpoint":"https://idp.example.com/auth",` +
				`"tokenEndpoint":"https://idp.example.com/token","userInfoEndpoint":"https://idp.example.com/userinfo","secretName":"` + oidcSecretName + `"}`,
		}},
		Spec: networkingv1.IngressSpec{
			IngressClassName: ptr.To(controller.DefaultIngressClass),
			Rules: []networkingv1.IngressRule{{Host: "shop.example.com", IngressRuleValue: networkingv1.IngressRuleValue{
				HTTP: &networkingv1.HTTPIngressRuleValue{Paths: []networkingv1.HTTPIngressPath{{Path: "/" + svc, PathType: &pt,
					Backend: networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
						Name: svc, Port: networkingv1.ServiceBackendPort{Number: 80}}}}}}}}},
		},
	}
}

func oidcSecret(ns, clientSecret string) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: oidcSecretName},
		Data: map[string][]byte{"clientID": []byte("client-1"), "clientSecret": []byte(clientSecret)}}
}

// shopGroup creates the group: two backends with two pods each, the OIDC Secret and two Ingresses.
// It returns the expected targets per Service.
func shopGroup(t *testing.T, ns string) map[string][]string {
	t.Helper()
	ensureIngressClass(t)
	want := map[string][]string{
		"cart":    targetKeys(backend(t, ns, "cart", 1, 2)),
		"catalog": targetKeys(backend(t, ns, "catalog", 2, 2)),
	}
	create(t, oidcSecret(ns, "secret-1"), groupIngress(ns, "cart", "cart", 1), groupIngress(ns, "catalog", "catalog", 2))
	return want
}

// clusterLoadBalancers are fakeaws's load balancers tagged for cluster.
func clusterLoadBalancers(cluster string) []fakeaws.LoadBalancer {
	return slices.DeleteFunc(aws_.LoadBalancers(), func(b fakeaws.LoadBalancer) bool { return !taggedFor(b.Tags, cluster) })
}

// clusterTargetGroups are fakeaws's target groups tagged for cluster.
func clusterTargetGroups(cluster string) []fakeaws.TargetGroup {
	return slices.DeleteFunc(aws_.TargetGroups(), func(tg fakeaws.TargetGroup) bool { return !taggedFor(tg.Tags, cluster) })
}

func taggedFor(tags []fakeaws.Tag, cluster string) bool {
	return slices.Contains(tags, fakeaws.Tag{Key: lbmodel.TagCluster, Value: cluster})
}

// oidcClientSecrets are the client secrets of the authenticate-oidc actions of every rule of the
// cluster's load balancers, in rule order.
func oidcClientSecrets(t *testing.T, cluster string) []string {
	t.Helper()
	var out []string
	for _, b := range clusterLoadBalancers(cluster) {
		ls, err := aws_.Listeners(b.ARN)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range ls {
			rules, err := aws_.Rules(l.ARN)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rules {
				for _, a := range r.Actions {
					if a.OIDC != nil {
						out = append(out, a.OIDC.ClientSecret)
					}
				}
			}
		}
	}
	return out
}

// stackTGBs lists the TargetGroupBindings of the namespace labelled for a stack.
func stackTGBs(t *testing.T, ns string, id lbmodel.StackID) []v1beta1.TargetGroupBinding {
	t.Helper()
	var list v1beta1.TargetGroupBindingList
	if err := k8s.List(context.Background(), &list, client.InNamespace(ns), client.MatchingLabels(lb.StackLabels(id))); err != nil {
		t.Fatal(err)
	}
	return list.Items
}

// waitStackBindingsReconciled waits until the TargetGroupBinding controller of r has finished a
// reconcile of every binding of the stack: with the load balancer reconciler's own sign (its skip or
// deploy counted), the restarted instance has done what the restart made it do.
func waitStackBindingsReconciled(t *testing.T, r *running, ns string, id lbmodel.StackID) {
	t.Helper()
	var names []string
	for _, tgb := range stackTGBs(t, ns, id) {
		names = append(names, tgb.Name)
	}
	if len(names) == 0 {
		t.Fatalf("stack %s has no bindings", id.Name)
	}
	r.waitReconciled(t, ns, names)
}

// counter reads a counter of reg by name and label values (0 when it has not been counted yet).
func counter(t *testing.T, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			for _, lp := range m.GetLabel() {
				if v, ok := labels[lp.GetName()]; ok && v != lp.GetValue() {
					continue metrics
				}
			}
			return m.GetCounter().GetValue()
		}
	}
	return 0
}

// operationsSince are the recorded AWS operations since call n.
func operationsSince(n int) []string {
	var ops []string
	for _, c := range aws_.Recorder().Since(n) {
		ops = append(ops, c.Operation)
	}
	return ops
}

func countOperation(ops []string, prefix string) int {
	n := 0
	for _, op := range ops {
		if strings.HasPrefix(op, prefix) {
			n++
		}
	}
	return n
}

// waitDeployed waits until every Ingress of names shows the load balancer hostname and, with the
// model checkpoint on, a saved checkpoint.
func waitDeployed(t *testing.T, ns string, model bool, names ...string) {
	t.Helper()
	testwait.Until(t, 60*time.Second, "the group deployed", func() bool {
		for _, name := range names {
			ing := &networkingv1.Ingress{}
			if err := k8s.Get(context.Background(), clientKey(ns, name), ing); err != nil {
				return false
			}
			if len(ing.Status.LoadBalancer.Ingress) != 1 || ing.Status.LoadBalancer.Ingress[0].Hostname == "" {
				return false
			}
			if model && ing.Annotations[lb.ModelCheckpointAnnotation] == "" {
				return false
			}
		}
		return true
	})
}

// loadBalancerOperations drops the TargetGroupBinding controller's target operations (it may still
// be waiting for a target to turn healthy across the restart); what remains can only come from the
// load balancer reconcilers.
func loadBalancerOperations(ops []string) []string {
	var out []string
	for _, op := range ops {
		switch op {
		case "DescribeTargetHealth", "RegisterTargets", "DeregisterTargets":
		default:
			out = append(out, op)
		}
	}
	return out
}

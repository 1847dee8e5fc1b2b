package lb_test

import (
	"context"
	"slices"
	"testing"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lb"
	"github.com/restartsim/restartsim/controller/lbmodel"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/testwait"
)

// classWithParams creates an IngressClass of its own for the test, naming IngressClassParams of the
// same name with the tag team=team, and returns the class name.
func classWithParams(t *testing.T, ns, team string) string {
	t.Helper()
	name := "params-" + ns
	params := &v1beta1.IngressClassParams{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: v1beta1.IngressClassParamsSpec{Tags: []v1beta1.Tag{{Key: "team", Value: team}}}}
	class := &networkingv1.IngressClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: networkingv1.IngressClassSpec{
		Controller: lbmodel.IngressClassController,
		Parameters: &networkingv1.IngressClassParametersReference{APIGroup: ptr.To(v1beta1.GroupVersion.Group),
			Kind: v1beta1.IngressClassParamsKind, Name: name, Scope: ptr.To(networkingv1.IngressClassParametersReferenceScopeCluster)},
	}}
	create(t, params, class)
	t.Cleanup(func() {
		_ = k8s.Delete(context.Background(), class)
		_ = k8s.Delete(context.Background(), params)
	})
	return name
}

func setTeam(t *testing.T, params, team string) {
	t.Helper()
	p := &v1beta1.IngressClassParams{}
	if err := k8s.Get(context.Background(), clientKey("", params), p); err != nil {
		t.Fatal(err)
	}
	p.Spec.Tags = []v1beta1.Tag{{Key: "team", Value: team}}
	if err := k8s.Update(context.Background(), p); err != nil {
		t.Fatal(err)
	}
}

// teamTagged reports whether the cluster has one load balancer and it, and every target group of
// the cluster, carries team=team.
func teamTagged(cluster, team string) bool {
	lbs, tgs := clusterLoadBalancers(cluster), clusterTargetGroups(cluster)
	tag := fakeaws.Tag{Key: "team", Value: team}
	return len(lbs) == 1 && slices.Contains(lbs[0].Tags, tag) && len(tgs) > 0 &&
		!slices.ContainsFunc(tgs, func(tg fakeaws.TargetGroup) bool { return !slices.Contains(tg.Tags, tag) })
}

// The IngressClassParams an IngressClass names are an input of every group's model: their tags reach
// AWS, a change while the controller runs is applied, and so is one made while it was down, which
// the model checkpoint must not skip.
func TestLBIngressClassParamsAreAModelInput(t *testing.T) {
	ns := newNamespace(t)
	opts := lbTestOptions(ns, controller.ModelCheckpointModel)
	opts.IngressClass = classWithParams(t, ns, "a")
	backend(t, ns, "cart", 1, 2)
	backend(t, ns, "catalog", 2, 2)
	cart, catalog := groupIngress(ns, "cart", "cart", 1), groupIngress(ns, "catalog", "catalog", 2)
	cart.Spec.IngressClassName, catalog.Spec.IngressClassName = &opts.IngressClass, &opts.IngressClass
	create(t, oidcSecret(ns, "secret-1"), cart, catalog)

	first := startController(t, ns, opts)
	waitDeployed(t, ns, true, "cart", "catalog")
	testwait.Until(t, 30*time.Second, "team=a on the stack", func() bool { return teamTagged(opts.ClusterName, "a") })
	checkpointA := modelCheckpointOf(t, ns, "cart")
	setTeam(t, opts.IngressClass, "b")
	testwait.Until(t, 30*time.Second, "team=b on the stack while running", func() bool { return teamTagged(opts.ClusterName, "b") })
	// Stop once team=b's checkpoint is saved: the restart must not skip the group on it.
	testwait.Until(t, 30*time.Second, "a new checkpoint", func() bool { return modelCheckpointOf(t, ns, "cart") != checkpointA })
	first.stop()

	setTeam(t, opts.IngressClass, "c")
	r := startController(t, ns, opts)
	testwait.Until(t, 30*time.Second, "team=c on the stack after the restart, by a deploy", func() bool {
		return teamTagged(opts.ClusterName, "c") && ingressCounter(t, r, lb.ResultDeployed) >= 1
	})
}

func modelCheckpointOf(t *testing.T, ns, name string) string {
	t.Helper()
	ing := &networkingv1.Ingress{}
	if err := k8s.Get(context.Background(), clientKey(ns, name), ing); err != nil {
		t.Fatal(err)
	}
	return ing.Annotations[lb.ModelCheckpointAnnotation]
}

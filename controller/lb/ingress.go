package lb

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lbmodel"
)

// ingressReconciler reconciles Ingress groups. A request names a group: Name is its lbmodel.GroupID
// name (an explicit group name, or namespace/name of an Ingress without one), Namespace is empty.
type ingressReconciler struct{ *reconciler }

// groupRequest is the request of an Ingress group.
func groupRequest(id lbmodel.StackID) reconcile.Request {
	return reconcile.Request{NamespacedName: types.NamespacedName{Name: id.Name}}
}

// Reconcile deploys (or deletes) the stack of one Ingress group.
func (r ingressReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	id := lbmodel.StackID{Kind: lbmodel.KindIngress, Name: req.Name}
	var list networkingv1.IngressList
	if err := r.client.List(ctx, &list, client.MatchingFields{indexIngressGroup: id.Name}); err != nil {
		return reconcile.Result{}, err
	}
	var members []networkingv1.Ingress
	s := stackSource{id: id, finalizer: IngressFinalizer, setHostname: setIngressHostname}
	for i := range list.Items {
		ing := &list.Items[i]
		switch {
		case ing.DeletionTimestamp.IsZero() && lbmodel.BelongsToClass(ing, r.cfg.IngressClass):
			members = append(members, *ing)
		case controllerutil.ContainsFinalizer(ing, IngressFinalizer):
			s.leaving = append(s.leaving, ing)
		}
	}
	var defaults *lbmodel.ClassDefaults
	if len(members) > 0 {
		var err error
		if defaults, err = r.classDefaults(ctx, members); err != nil {
			r.metrics.reconciles.WithLabelValues(string(id.Kind), resultError).Inc()
			return reconcile.Result{}, err
		}
	}
	group, err := lbmodel.GroupIngresses(members)
	if err != nil {
		r.metrics.reconciles.WithLabelValues(string(id.Kind), resultError).Inc()
		return reconcile.Result{}, err
	}
	if len(group) == 1 {
		members = group[0].Members // LBC's merge order
	}
	for i := range members {
		s.members = append(s.members, &members[i])
	}
	s.build = func() (lbmodel.Stack, lbmodel.Inputs, error) {
		svcs, secs, err := r.ingressInputs(ctx, members)
		if err != nil {
			return lbmodel.Stack{}, lbmodel.Inputs{}, err
		}
		return lbmodel.BuildIngress(lbmodel.IngressInput{ClusterName: r.cfg.ClusterName,
			Group: lbmodel.IngressGroup{ID: id, Members: members}, Services: svcs, Secrets: secs, ClassDefaults: defaults})
	}
	s.owner = func(b lbmodel.Binding) client.Object { return bindingOwner(members, b) }
	return r.reconcileStack(ctx, s)
}

// classDefaults makes sure that the IngressClass members name in spec.ingressClassName exists and
// is served by this controller, as LBC does, and returns the group-wide settings of the
// IngressClassParams it names (nil: none); members using the legacy annotation need no class.
func (r ingressReconciler) classDefaults(ctx context.Context, members []networkingv1.Ingress) (*lbmodel.ClassDefaults, error) {
	if !slices.ContainsFunc(members, func(ing networkingv1.Ingress) bool { return ing.Spec.IngressClassName != nil }) {
		return nil, nil
	}
	class := &networkingv1.IngressClass{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: r.cfg.IngressClass}, class); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("IngressClass %s not found", r.cfg.IngressClass)
		}
		return nil, err
	}
	if class.Spec.Controller != lbmodel.IngressClassController {
		return nil, fmt.Errorf("IngressClass %s is served by %q, not %q", class.Name, class.Spec.Controller, lbmodel.IngressClassController)
	}
	name, ok := lbmodel.ClassParamsName(class)
	if !ok {
		return nil, nil
	}
	params := &v1beta1.IngressClassParams{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: name}, params); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("IngressClassParams %s of IngressClass %s not found", name, class.Name)
		}
		return nil, err
	}
	return lbmodel.ClassDefaultsOf(params), nil
}

// bindingOwner is the member in the binding's namespace that names the binding's Service.
func bindingOwner(members []networkingv1.Ingress, b lbmodel.Binding) client.Object {
	for i := range members {
		if members[i].Namespace != b.Namespace {
			continue
		}
		for _, name := range ingressServiceNames(&members[i]) {
			if name == b.ServiceName {
				return &members[i]
			}
		}
	}
	return nil
}

// setIngressHostname writes host as the Ingress's only load balancer address ("" clears them).
func setIngressHostname(obj client.Object, host string) bool {
	ing := obj.(*networkingv1.Ingress)
	var want []networkingv1.IngressLoadBalancerIngress
	if host != "" {
		want = []networkingv1.IngressLoadBalancerIngress{{Hostname: host}}
	}
	if equality.Semantic.DeepEqual(ing.Status.LoadBalancer.Ingress, want) {
		return false
	}
	ing.Status.LoadBalancer.Ingress = want
	return true
}

// Event mapping: each event becomes the requests of the groups that read the object.

// ingressGroups maps an Ingress to its group, when the reconciler manages it or it still holds the
// finalizer (it is leaving the class or being deleted). On an update, controller-runtime maps the
// old and the new object, so an Ingress moving between groups enqueues both.
func (r ingressReconciler) ingressGroups(_ context.Context, obj client.Object) []reconcile.Request {
	ing, ok := obj.(*networkingv1.Ingress)
	if !ok || !(lbmodel.BelongsToClass(ing, r.cfg.IngressClass) || controllerutil.ContainsFinalizer(ing, IngressFinalizer)) {
		return nil
	}
	return []reconcile.Request{groupRequest(lbmodel.GroupID(ing))}
}

// groupsByIndex maps obj to the groups of the Ingresses whose index field holds namespace/name of obj.
func (r ingressReconciler) groupsByIndex(ctx context.Context, index string, obj client.Object) []reconcile.Request {
	var list networkingv1.IngressList
	if err := r.client.List(ctx, &list, client.MatchingFields{index: obj.GetNamespace() + "/" + obj.GetName()}); err != nil {
		r.log.Error(err, "mapping an event to Ingress groups", "index", index, "object", client.ObjectKeyFromObject(obj))
		return nil
	}
	return r.groupsOf(list.Items)
}

func (r ingressReconciler) groupsOf(ingresses []networkingv1.Ingress) []reconcile.Request {
	seen := map[string]bool{}
	var out []reconcile.Request
	for i := range ingresses {
		for _, req := range r.ingressGroups(context.Background(), &ingresses[i]) {
			if !seen[req.Name] {
				seen[req.Name] = true
				out = append(out, req)
			}
		}
	}
	return out
}

func (r ingressReconciler) serviceGroups(ctx context.Context, obj client.Object) []reconcile.Request {
	if _, ok := obj.(*corev1.Service); !ok {
		return nil
	}
	return r.groupsByIndex(ctx, indexIngressServices, obj)
}

func (r ingressReconciler) secretGroups(ctx context.Context, obj client.Object) []reconcile.Request {
	if _, ok := obj.(*corev1.Secret); !ok {
		return nil
	}
	return r.groupsByIndex(ctx, indexIngressSecrets, obj)
}

// classGroups maps the IngressClass of the reconciler to every group: its appearance or a change of
// its controller decides whether the groups are served at all.
func (r ingressReconciler) classGroups(ctx context.Context, obj client.Object) []reconcile.Request {
	if obj.GetName() != r.cfg.IngressClass {
		return nil
	}
	return r.allGroups(ctx)
}

// classParamsGroups maps the IngressClassParams the reconciler's IngressClass names to every group:
// they are an input of every group's model.
func (r ingressReconciler) classParamsGroups(ctx context.Context, obj client.Object) []reconcile.Request {
	class := &networkingv1.IngressClass{}
	if err := r.client.Get(ctx, client.ObjectKey{Name: r.cfg.IngressClass}, class); err != nil {
		return nil // without the class no group is served; its appearance enqueues them all
	}
	if name, ok := lbmodel.ClassParamsName(class); !ok || name != obj.GetName() {
		return nil
	}
	return r.allGroups(ctx)
}

func (r ingressReconciler) allGroups(ctx context.Context) []reconcile.Request {
	var list networkingv1.IngressList
	if err := r.client.List(ctx, &list); err != nil {
		r.log.Error(err, "listing the Ingresses to map an event to every group")
		return nil
	}
	return r.groupsOf(list.Items)
}

package lb

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/controller/lbmodel"
)

// serviceReconciler reconciles the NLB stack of each Service lbmodel.ManagesService accepts; a
// request is the Service's namespace/name.
type serviceReconciler struct{ *reconciler }

// Reconcile deploys (or deletes) the stack of one Service.
func (r serviceReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	id := lbmodel.StackID{Kind: lbmodel.KindService, Name: req.Namespace + "/" + req.Name}
	svc := &corev1.Service{}
	if err := r.client.Get(ctx, req.NamespacedName, svc); err != nil {
		// Gone without our finalizer: it never had a stack.
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	s := stackSource{id: id, finalizer: ServiceFinalizer, setHostname: setServiceHostname}
	switch {
	case svc.DeletionTimestamp.IsZero() && lbmodel.ManagesService(svc):
		s.members = []client.Object{svc}
	case controllerutil.ContainsFinalizer(svc, ServiceFinalizer):
		s.leaving = []client.Object{svc}
	default:
		return reconcile.Result{}, nil
	}
	s.build = func() (lbmodel.Stack, lbmodel.Inputs, error) {
		return lbmodel.BuildService(lbmodel.ServiceInput{ClusterName: r.cfg.ClusterName, Service: *svc})
	}
	s.owner = func(lbmodel.Binding) client.Object { return svc }
	return r.reconcileStack(ctx, s)
}

// setServiceHostname writes host as the Service's only load balancer address ("" clears them).
func setServiceHostname(obj client.Object, host string) bool {
	svc := obj.(*corev1.Service)
	var want []corev1.LoadBalancerIngress
	if host != "" {
		want = []corev1.LoadBalancerIngress{{Hostname: host}}
	}
	if equality.Semantic.DeepEqual(svc.Status.LoadBalancer.Ingress, want) {
		return false
	}
	svc.Status.LoadBalancer.Ingress = want
	return true
}

// servicePredicateObject passes the Services the reconciler manages or still holds a finalizer on.
func servicePredicateObject(obj client.Object) bool {
	svc, ok := obj.(*corev1.Service)
	return ok && (lbmodel.ManagesService(svc) || controllerutil.ContainsFinalizer(svc, ServiceFinalizer))
}

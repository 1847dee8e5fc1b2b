package controller

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/awsclient"
	"github.com/restartsim/restartsim/controller/lbdeploy"
)

// Names of the load balancer reconcilers in controller-runtime metrics and logs.
const (
	IngressControllerName = "ingress"
	ServiceControllerName = "service"
)

// setupLoadBalancers builds the Ingress and Service reconcilers on mgr (Options.LoadBalancers). They
// share the TargetGroupBinding controller's AWS clients, and with them its client-side throttle.
func (c *Controller) setupLoadBalancers(mgr manager.Manager, clients *awsclient.Clients) error {
	if !c.opts.LoadBalancers {
		return nil
	}
	m, err := newLBMetrics(c.opts.MetricsRegistry)
	if err != nil {
		return fmt.Errorf("registering load balancer metrics: %w", err)
	}
	log := c.opts.Logger.WithName("lb")
	dep, err := lbdeploy.New(lbdeploy.Config{ClusterName: c.opts.ClusterName, VpcID: c.opts.VpcID,
		ELB: clients.ELBV2, EC2: clients.EC2, Logger: log.WithName("deploy")})
	if err != nil {
		return err
	}
	if err := setupLBIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	base := &lbReconciler{opts: c.opts, client: mgr.GetClient(), scheme: mgr.GetScheme(), log: log, deployer: dep, metrics: m}
	opts := crcontroller.Options{
		MaxConcurrentReconciles: c.opts.MaxConcurrentReconciles,
		SkipNameValidation:      ptr.To(true),
		UsePriorityQueue:        ptr.To(c.opts.PriorityQueue),
	}
	ing := ingressReconciler{base.withLogger(log.WithName(IngressControllerName))}
	err = builder.ControllerManagedBy(mgr).
		Named(IngressControllerName).
		Watches(&networkingv1.Ingress{}, handler.EnqueueRequestsFromMapFunc(ing.ingressGroups), builder.WithPredicates(lbObjectPredicate())).
		Watches(&corev1.Service{}, handler.EnqueueRequestsFromMapFunc(ing.serviceGroups)).
		Watches(&corev1.Secret{}, handler.EnqueueRequestsFromMapFunc(ing.secretGroups)).
		Watches(&networkingv1.IngressClass{}, handler.EnqueueRequestsFromMapFunc(ing.classGroups)).
		Watches(&v1beta1.IngressClassParams{}, handler.EnqueueRequestsFromMapFunc(ing.classParamsGroups)).
		WithOptions(opts).
		Complete(ing)
	if err != nil {
		return fmt.Errorf("building the Ingress controller: %w", err)
	}
	svc := serviceReconciler{base.withLogger(log.WithName(ServiceControllerName))}
	err = builder.ControllerManagedBy(mgr).
		Named(ServiceControllerName).
		For(&corev1.Service{}, builder.WithPredicates(predicate.NewPredicateFuncs(servicePredicateObject), lbObjectPredicate())).
		WithOptions(opts).
		Complete(svc)
	if err != nil {
		return fmt.Errorf("building the Service load balancer controller: %w", err)
	}
	return nil
}

// withLogger is a copy of r logging to log.
func (r *lbReconciler) withLogger(log logr.Logger) *lbReconciler {
	cp := *r
	cp.log = log
	return &cp
}

// lbObjectPredicate passes the updates of an Ingress or Service that can change its stack: spec
// (generation; a Service has none, so its spec is compared), annotations other than the model
// checkpoint, labels and deletion; not status writes, nor the reconciler's own finalizer and
// checkpoint patches.
func lbObjectPredicate() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetResourceVersion() == n.GetResourceVersion() || // resync
			o.GetGeneration() != n.GetGeneration() ||
			!equalMaps(withoutCheckpoint(o.GetAnnotations()), withoutCheckpoint(n.GetAnnotations())) ||
			(o.GetDeletionTimestamp() == nil) != (n.GetDeletionTimestamp() == nil) ||
			serviceSpecChanged(o, n)
	}}
}

func withoutCheckpoint(a map[string]string) map[string]string {
	if _, ok := a[ModelCheckpointAnnotation]; !ok {
		return a
	}
	out := make(map[string]string, len(a))
	for k, v := range a {
		if k != ModelCheckpointAnnotation {
			out[k] = v
		}
	}
	return out
}

// serviceSpecChanged compares what the NLB model reads of a Service's spec (Services have no
// generation).
func serviceSpecChanged(o, n client.Object) bool {
	so, ok1 := o.(*corev1.Service)
	sn, ok2 := n.(*corev1.Service)
	if !ok1 || !ok2 {
		return false
	}
	return so.Spec.Type != sn.Spec.Type || !ptr.Equal(so.Spec.LoadBalancerClass, sn.Spec.LoadBalancerClass) ||
		!equality.Semantic.DeepEqual(so.Spec.Ports, sn.Spec.Ports)
}

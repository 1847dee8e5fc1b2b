package lb

import (
	"context"
	"fmt"
	"maps"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
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
	"github.com/restartsim/restartsim/controller/lbdeploy"
)

// Names of the load balancer reconcilers in controller-runtime metrics and logs.
const (
	IngressControllerName = "ingress"
	ServiceControllerName = "service"
)

// Config configures the Ingress and Service reconcilers. The caller applies the defaults.
type Config struct {
	// ClusterName is the elbv2.k8s.aws/cluster tag of the stacks; VpcID their VPC. Both required.
	ClusterName, VpcID string
	// IngressClass is the IngressClass whose Ingresses the Ingress reconciler manages.
	IngressClass string
	// ModelCheckpoint stores each stack's model checkpoint on its members and skips a reconcile
	// whose checkpoint still matches, with no AWS call. Off: every reconcile deploys.
	ModelCheckpoint bool
	// SecretBlindCheckpoint leaves the Secrets out of the model checkpoint: a known bug, injected
	// for mutation testing.
	SecretBlindCheckpoint bool
	// MaxConcurrentReconciles and PriorityQueue configure each reconciler's work queue.
	MaxConcurrentReconciles int
	PriorityQueue           bool
	// ELB and EC2 are the AWS clients; sharing the TargetGroupBinding controller's shares its
	// client-side throttle.
	ELB lbdeploy.ELBV2API
	EC2 lbdeploy.EC2API
	// Logger is the reconcilers' logger.
	Logger logr.Logger
	// MetricsRegistry receives the lb_model_* metrics (registering twice reuses the collectors).
	MetricsRegistry prometheus.Registerer
}

// Setup builds the Ingress and Service reconcilers on mgr; the caller starts mgr.
func Setup(mgr manager.Manager, cfg Config) error {
	m, err := newMetrics(cfg.MetricsRegistry)
	if err != nil {
		return fmt.Errorf("registering load balancer metrics: %w", err)
	}
	log := cfg.Logger
	dep, err := lbdeploy.New(lbdeploy.Config{ClusterName: cfg.ClusterName, VpcID: cfg.VpcID,
		ELB: cfg.ELB, EC2: cfg.EC2, Logger: log.WithName("deploy")})
	if err != nil {
		return err
	}
	if err := setupIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	base := &reconciler{cfg: cfg, client: mgr.GetClient(), scheme: mgr.GetScheme(), log: log, deployer: dep, metrics: m}
	opts := crcontroller.Options{
		MaxConcurrentReconciles: cfg.MaxConcurrentReconciles,
		SkipNameValidation:      ptr.To(true),
		UsePriorityQueue:        ptr.To(cfg.PriorityQueue),
	}
	ing := ingressReconciler{base.withLogger(log.WithName(IngressControllerName))}
	err = builder.ControllerManagedBy(mgr).
		Named(IngressControllerName).
		Watches(&networkingv1.Ingress{}, handler.EnqueueRequestsFromMapFunc(ing.ingressGroups), builder.WithPredicates(objectPredicate())).
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
		For(&corev1.Service{}, builder.WithPredicates(predicate.NewPredicateFuncs(servicePredicateObject), objectPredicate())).
		WithOptions(opts).
		Complete(svc)
	if err != nil {
		return fmt.Errorf("building the Service load balancer controller: %w", err)
	}
	return nil
}

// withLogger is a copy of r logging to log.
func (r *reconciler) withLogger(log logr.Logger) *reconciler {
	cp := *r
	cp.log = log
	return &cp
}

// objectPredicate passes the updates of an Ingress or Service that can change its stack: spec
// (generation; a Service has none, so its spec is compared), annotations other than the model
// checkpoint, labels and deletion; not status writes, nor the reconciler's own finalizer and
// checkpoint patches.
func objectPredicate() predicate.Predicate {
	return predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
		o, n := e.ObjectOld, e.ObjectNew
		return o.GetResourceVersion() == n.GetResourceVersion() || // resync
			o.GetGeneration() != n.GetGeneration() ||
			!maps.Equal(withoutCheckpoint(o.GetAnnotations()), withoutCheckpoint(n.GetAnnotations())) ||
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

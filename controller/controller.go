package controller

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crcontroller "sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/awsclient"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/deferred"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/controller/internal/networking"
	"github.com/restartsim/restartsim/controller/internal/targets"
	"github.com/restartsim/restartsim/controller/lb"
	"github.com/restartsim/restartsim/internal/throttlespec"
)

// Name is the controller's name in controller-runtime metrics and logs.
const Name = "targetgroupbinding"

// FinalizerName is the finalizer the controller puts on every TargetGroupBinding.
const FinalizerName = "elbv2.k8s.aws/resources"

// Controller is one TargetGroupBinding controller instance; all its state lives here.
type Controller struct {
	opts      Options
	client    client.Client
	apiReader client.Reader // live reads (the resume fast path)
	log       logr.Logger
	recorder  recorder.EventRecorder
	metrics   *metrics.Metrics
	elb       *awsclient.ELB
	ec2       *awsclient.EC2
	network   *networking.Manager
	codec     checkpoint.Codec // nil for CheckpointNone

	processed *deferred.Processed
	schedule  *deferred.Schedule
	queue     *deferred.Queue  // annotation
	timers    *deferred.Timers // compact

	driftTimers   *deferred.Timers // nil when drift checks are off
	driftSchedule *deferred.Schedule

	// initialSkipped counts secondary initial-list events not mapped to bindings (see
	// initialFanOutMatters); read by tests.
	initialSkipped atomic.Int64

	registeredMu sync.Mutex
	registered   map[string]map[string]targets.Target // TG ARN → targets this instance registered (multi-cluster groups)

	// progress tracks the work queue for the resume watermark (nil without Resume); resumeDone
	// is closed when the resume fast path has drained (at once without it): workers wait for it.
	progress   *progress
	resumeDone chan struct{}

	// hooks for tests: called after RegisterTargets succeeded, before the checkpoint save;
	// afterReconcile after each reconcile of the work queue, with its result (metrics.Result*) and
	// the requeue it asked for (0: none).
	afterRegister  func(ctx context.Context, tgb *v1beta1.TargetGroupBinding) error
	afterReconcile func(key types.NamespacedName, result string, requeueAfter time.Duration)
}

// New builds a controller on mgr: AWS clients, field indexes, watches, the reconciler and (for the
// annotation strategy) the deferred queue runnable. The caller starts mgr.
func New(mgr manager.Manager, opts Options) (*Controller, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	o := opts.setDefaults()
	if o.Logger.GetSink() == nil {
		o.Logger = mgr.GetLogger().WithName(Name)
	}
	m, err := metrics.New(o.MetricsRegistry)
	if err != nil {
		return nil, fmt.Errorf("registering metrics: %w", err)
	}
	thr, err := throttlespec.ParseWithDefaults(o.AWS.Throttle)
	if err != nil {
		return nil, err
	}
	clients, err := awsclient.NewClients(context.Background(), awsclient.Config{
		Region: o.AWS.Region, Endpoint: o.AWS.Endpoint, AccessKeyID: o.AWS.AccessKeyID,
		SecretAccessKey: o.AWS.SecretAccessKey, MaxAttempts: o.AWS.MaxAttempts, Throttle: thr, Logger: o.Logger.WithName("aws-sdk"),
	}, m)
	if err != nil {
		return nil, err
	}
	c := &Controller{
		opts: o, client: mgr.GetClient(), apiReader: mgr.GetAPIReader(), log: o.Logger, metrics: m,
		recorder:   mgr.GetEventRecorder("targetgroupbinding-controller"),
		elb:        awsclient.NewELB(clients.ELBV2, o.TargetHealthCacheTTL, o.Clock),
		ec2:        awsclient.NewEC2(clients.EC2, o.SecurityGroupCacheTTL, o.Clock),
		processed:  deferred.NewProcessed(o.SyncPeriod, o.Clock),
		schedule:   deferred.NewSchedule(o.DeferralDelay, max(o.DeferralJitter, 0), o.Rand.Uint64()),
		registered: map[string]map[string]targets.Target{},
		resumeDone: make(chan struct{}),
	}
	if o.DriftCheckInterval > 0 {
		// Its own seed, drawn from o.Rand after the deferral schedule's, so the two never correlate.
		c.driftSchedule = deferred.NewSchedule(o.DriftCheckInterval, o.DriftCheckInterval/2, o.Rand.Uint64())
		c.driftTimers = deferred.NewTimers(o.Clock, prometheus.NewGauge(prometheus.GaugeOpts{Name: "unregistered"}))
	}
	c.network = networking.NewManager(networking.Options{EC2: c.ec2, ClusterName: o.ClusterName, NetworkingTGBs: c.networkingTGBs})
	if err := c.setupCheckpoint(mgr); err != nil {
		return nil, err
	}
	if err := setupIndexes(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	if err := c.setupLoadBalancers(mgr, clients); err != nil {
		return nil, err
	}
	if !o.legacyStartup {
		if err := warmInformers(context.Background(), mgr.GetCache()); err != nil {
			return nil, err
		}
	}
	ctrlOpts := crcontroller.Options{
		MaxConcurrentReconciles: o.MaxConcurrentReconciles,
		SkipNameValidation:      ptr.To(true),
		UsePriorityQueue:        ptr.To(o.PriorityQueue),
	}
	if err := c.setupResume(mgr, &ctrlOpts); err != nil {
		return nil, err
	}
	if err := c.setupSlowStart(mgr); err != nil {
		return nil, err
	}
	c.reportWorkQueue(&ctrlOpts)
	err = builder.ControllerManagedBy(mgr).
		Named(Name).
		For(&v1beta1.TargetGroupBinding{}, builder.WithPredicates(tgbPredicate())).
		Watches(&corev1.Service{}, c.serviceHandler()).
		Watches(&discoveryv1.EndpointSlice{}, c.endpointSliceHandler()).
		Watches(&corev1.Pod{}, c.podHandler()).
		Watches(&corev1.Node{}, c.nodeHandler()).
		WithOptions(ctrlOpts).
		Complete(timedReconciler{name: Name, m: c.metrics, inner: c})
	if err != nil {
		return nil, fmt.Errorf("building controller: %w", err)
	}
	return c, nil
}

// OnReconciled makes c call f after each TargetGroupBinding reconcile of its work queue, with the
// binding's key, result and the requeue the reconcile asked for (0: none): the sign that a binding
// has settled, for whoever runs beside c (the load balancer reconcilers' tests). Call it before the
// manager starts.
func (c *Controller) OnReconciled(f func(key types.NamespacedName, result string, requeueAfter time.Duration)) {
	c.afterReconcile = f
}

// setupCheckpoint sets up the startup strategy's checkpoint codec and deferred full reconciles:
// the annotation strategy's queue runnable on mgr, or the compact strategy's timers.
func (c *Controller) setupCheckpoint(mgr manager.Manager) error {
	switch c.opts.Checkpoint {
	case CheckpointAnnotation:
		c.codec = checkpoint.Upstream{}
		c.queue = deferred.NewQueue(deferred.QueueOptions{
			Schedule: c.schedule, Clock: c.opts.Clock, Depth: c.metrics.DeferredQueueDepth, Handle: c.handleDeferred,
			Log: c.opts.Logger.WithName("deferred"),
		})
		return mgr.Add(manager.RunnableFunc(c.queue.Start))
	case CheckpointCompact:
		c.codec = checkpoint.Compact{}
		c.timers = deferred.NewTimers(c.opts.Clock, c.metrics.DeferredQueueDepth)
	}
	return nil
}

// setupLoadBalancers builds the Ingress and Service reconcilers on mgr (Options.LoadBalancers). They
// share this controller's AWS clients, and with them its client-side throttle.
func (c *Controller) setupLoadBalancers(mgr manager.Manager, clients *awsclient.Clients) error {
	if !c.opts.LoadBalancers {
		return nil
	}
	return lb.Setup(mgr, lb.Config{
		ClusterName: c.opts.ClusterName, VpcID: c.opts.VpcID, IngressClass: c.opts.IngressClass,
		ModelCheckpoint:         c.opts.ModelCheckpoint == ModelCheckpointModel,
		SecretBlindCheckpoint:   c.opts.Mutant == MutantSecretBlindModel,
		MaxConcurrentReconciles: c.opts.MaxConcurrentReconciles, PriorityQueue: c.opts.PriorityQueue,
		ELB: clients.ELBV2, EC2: clients.EC2,
		Logger: c.opts.Logger.WithName("lb"), MetricsRegistry: c.opts.MetricsRegistry,
	})
}

// warmInformers creates the informers of the watched kinds now, so that all of them list and sync
// in parallel as soon as the manager starts its caches. Otherwise the Service, Pod and Node
// informers are created only when the controller starts its watches, which controller-runtime
// does after the informers it already knows (bindings and EndpointSlices, created by the field
// indexes) have synced: two sync phases in series. A standby replica thereby keeps these caches
// warm too, so a leader handover does not wait for them.
func warmInformers(ctx context.Context, c cache.Cache) error {
	for _, obj := range []client.Object{&corev1.Service{}, &corev1.Pod{}, &corev1.Node{}} {
		if _, err := c.GetInformer(ctx, obj); err != nil {
			return fmt.Errorf("creating the %T informer: %w", obj, err)
		}
	}
	return nil
}

// handleDeferred is the annotation strategy's deferred work: reset the checkpoint with a PATCH so
// that the resulting update event triggers a full reconcile.
func (c *Controller) handleDeferred(ctx context.Context, key types.NamespacedName) error {
	tgb := &v1beta1.TargetGroupBinding{}
	if err := c.client.Get(ctx, key, tgb); err != nil {
		return client.IgnoreNotFound(err)
	}
	if !tgb.DeletionTimestamp.IsZero() {
		return nil
	}
	return c.resetCheckpoint(ctx, tgb, resetDeferred)
}

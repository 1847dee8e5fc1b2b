package kubesim

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	crcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// SimulatorOptions configures a Simulator. Zero values take the documented defaults.
type SimulatorOptions struct {
	// Labels selects the pods and EndpointSlices the simulator manages (the run label, as in
	// workload.Options.Labels). Default none: every pod with the restartsim.io/service label and every
	// slice the workload manages.
	Labels map[string]string
	// Workers is the number of workers of each of the two queues (kubelet, endpoints). Default 4.
	Workers int
	// NodeLeaseInterval is how often the fleet's node heartbeat Leases (kube-node-lease) are renewed, as
	// kubelets do; on a real cluster this keeps the node lifecycle controller from marking the simulated
	// nodes NotReady and evicting their pods. Default 10s; negative disables.
	NodeLeaseInterval time.Duration
	// ClusterEndpointSlices: the cluster's EndpointSlice controller writes the slices (as with
	// workload.Spec.ClusterEndpointSlices). The simulator then plays only the kubelet, and its slice
	// informer holds every slice with the run's labels, whoever manages it.
	ClusterEndpointSlices bool
	// Logger. Default logr.Discard().
	Logger logr.Logger
}

func (o *SimulatorOptions) setDefaults() {
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.NodeLeaseInterval == 0 {
		o.NodeLeaseInterval = 10 * time.Second
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
}

// Simulator plays the kubelet's readiness rule and the endpoint controller for the fleet's pods, which
// envtest lacks:
//   - kubelet: a pod's Ready condition = ContainersReady && every readiness-gate condition True, and a
//     heartbeat Lease per fleet node;
//   - endpoint controller: each Service's EndpointSlice lists its pods with ready / serving / terminating
//     as the real controller derives them (pods held back only by a readiness gate are present with
//     ready=false).
//
// It watches through informers and handles one pod or one Service per work item, so its cost per event
// does not grow with the fleet. It only updates slices that exist (Create and the mutations create
// and delete them).
type Simulator struct {
	opts      SimulatorOptions
	c         client.Client // writes, and the consistent reads of SyncSlice
	factories []informers.SharedInformerFactory
	pods      cache.SharedIndexInformer
	slices    cache.SharedIndexInformer
	kubelet   workqueue.TypedRateLimitingInterface[types.NamespacedName]
	endpoints workqueue.TypedRateLimitingInterface[types.NamespacedName]
	synced    chan struct{}
	writes    atomic.Int64
}

const byService = "service"

// NewSimulator builds a Simulator on cfg (copied; protobuf is used, and a zero QPS means no client-side
// rate limit). Start runs it.
func NewSimulator(cfg *rest.Config, opts SimulatorOptions) (*Simulator, error) {
	opts.setDefaults()
	cfg = rest.CopyConfig(cfg)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	if cfg.QPS == 0 && cfg.RateLimiter == nil {
		cfg.QPS = -1
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("simulator client: %w", err)
	}
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, fmt.Errorf("simulator client: %w", err)
	}
	return newSimulator(cs, c, opts)
}

func newSimulator(cs kubernetes.Interface, c client.Client, opts SimulatorOptions) (*Simulator, error) {
	run := labels.SelectorFromSet(opts.Labels)
	podSel, _ := labels.NewRequirement(ServiceLabel, selection.Exists, nil)
	sliceSel, _ := labels.NewRequirement(discoveryv1.LabelManagedBy, selection.Equals, []string{ManagedBy})
	// Cached objects lose their managedFields: a third of a pod's size, never read here (an update
	// without them keeps the server's). Pods keep only what the kubelet and endpoint rules read.
	strip := informers.WithTransform(crcache.TransformStripManagedFields())
	podFactory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithTransform(trimPod), informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = run.Add(*podSel).String()
	}))
	slicesOf := run.Add(*sliceSel)
	if opts.ClusterEndpointSlices {
		slicesOf = run
	}
	sliceFactory := informers.NewSharedInformerFactoryWithOptions(cs, 0, strip, informers.WithTweakListOptions(func(o *metav1.ListOptions) {
		o.LabelSelector = slicesOf.String()
	}))
	s := &Simulator{
		opts:      opts,
		c:         c,
		factories: []informers.SharedInformerFactory{podFactory, sliceFactory},
		pods:      podFactory.Core().V1().Pods().Informer(),
		slices:    sliceFactory.Discovery().V1().EndpointSlices().Informer(),
		kubelet: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "simulated-kubelet"}),
		endpoints: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[types.NamespacedName](),
			workqueue.TypedRateLimitingQueueConfig[types.NamespacedName]{Name: "simulated-endpoints"}),
		synced: make(chan struct{}),
	}
	if err := s.pods.AddIndexers(cache.Indexers{byService: func(obj any) ([]string, error) {
		p := obj.(*corev1.Pod)
		return []string{p.Namespace + "/" + p.Labels[ServiceLabel]}, nil
	}}); err != nil {
		return nil, err
	}
	if err := s.slices.AddIndexers(cache.Indexers{byService: func(obj any) ([]string, error) {
		e := obj.(*discoveryv1.EndpointSlice)
		return []string{e.Namespace + "/" + e.Labels[discoveryv1.LabelServiceName]}, nil
	}}); err != nil {
		return nil, err
	}
	if _, err := s.pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) { s.podChanged(nil, obj.(*corev1.Pod)) },
		UpdateFunc: func(old, obj any) {
			s.podChanged(old.(*corev1.Pod), obj.(*corev1.Pod))
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if p, ok := obj.(*corev1.Pod); ok {
				s.queueEndpoints(serviceOf(p))
			}
		},
	}); err != nil {
		return nil, err
	}
	if _, err := s.slices.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { s.queueEndpoints(sliceService(obj.(*discoveryv1.EndpointSlice))) },
		UpdateFunc: func(_, obj any) { s.queueEndpoints(sliceService(obj.(*discoveryv1.EndpointSlice))) },
	}); err != nil {
		return nil, err
	}
	return s, nil
}

// trimPod is the simulated kubelet's cache transform: it keeps the metadata (less managedFields),
// the node, readiness gates and container ports (Desired resolves named target ports from them),
// the phase, IPs and conditions. The API server's defaults (tolerations, the service account
// volume) and the container statuses go. The simulator writes pods only with strategic merge
// patches of the Ready condition, so nothing trimmed is ever written back; at 10k bindings the
// cache holds 30,000 pods.
func trimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return obj, nil
	}
	p.ManagedFields = nil
	var containers []corev1.Container
	for _, c := range p.Spec.Containers {
		containers = append(containers, corev1.Container{Name: c.Name, Ports: c.Ports})
	}
	p.Spec = corev1.PodSpec{NodeName: p.Spec.NodeName, ReadinessGates: p.Spec.ReadinessGates, Containers: containers}
	p.Status = corev1.PodStatus{Phase: p.Status.Phase, Conditions: p.Status.Conditions, PodIP: p.Status.PodIP,
		PodIPs: p.Status.PodIPs, HostIP: p.Status.HostIP, HostIPs: p.Status.HostIPs}
	return p, nil
}

func serviceOf(p *corev1.Pod) types.NamespacedName {
	return types.NamespacedName{Namespace: p.Namespace, Name: p.Labels[ServiceLabel]}
}

func sliceService(e *discoveryv1.EndpointSlice) types.NamespacedName {
	return types.NamespacedName{Namespace: e.Namespace, Name: e.Labels[discoveryv1.LabelServiceName]}
}

// podChanged queues the kubelet when the pod's Ready condition is out of date and the endpoint
// controller when the pod's endpoint changed.
func (s *Simulator) podChanged(old, pod *corev1.Pod) {
	if readyLags(pod) {
		s.kubelet.Add(types.NamespacedName{Namespace: pod.Namespace, Name: pod.Name})
	}
	if old == nil || inEndpoints(old) != inEndpoints(pod) ||
		(inEndpoints(pod) && !endpointsEqual([]discoveryv1.Endpoint{Endpoint(old)}, []discoveryv1.Endpoint{Endpoint(pod)})) {
		s.queueEndpoints(serviceOf(pod))
	}
}

// queueEndpoints queues the Service's slice sync, unless the cluster writes the slices.
func (s *Simulator) queueEndpoints(svc types.NamespacedName) {
	if !s.opts.ClusterEndpointSlices {
		s.endpoints.Add(svc)
	}
}

// Start runs the simulator until ctx is done. It returns an error only if the caches cannot sync.
func (s *Simulator) Start(ctx context.Context) error {
	defer s.kubelet.ShutDown()
	defer s.endpoints.ShutDown()
	for _, f := range s.factories {
		f.Start(ctx.Done())
	}
	defer func() {
		for _, f := range s.factories {
			f.Shutdown()
		}
	}()
	if !cache.WaitForCacheSync(ctx.Done(), s.pods.HasSynced, s.slices.HasSynced) {
		return fmt.Errorf("simulator: caches did not sync: %w", context.Cause(ctx))
	}
	close(s.synced)
	if s.opts.ClusterEndpointSlices {
		s.opts.Logger.Info("simulated kubelet running (the cluster writes the EndpointSlices)", "workers", s.opts.Workers)
	} else {
		s.opts.Logger.Info("simulated kubelet and endpoint controller running", "workers", s.opts.Workers)
	}
	var wg sync.WaitGroup
	if s.opts.NodeLeaseInterval > 0 {
		wg.Go(func() { s.renewLeases(ctx) })
	}
	for range s.opts.Workers {
		wg.Go(func() { s.run(ctx, s.kubelet, s.syncPod) })
		wg.Go(func() { s.run(ctx, s.endpoints, s.syncEndpoints) })
	}
	<-ctx.Done()
	s.kubelet.ShutDown()
	s.endpoints.ShutDown()
	wg.Wait()
	return nil
}

// Synced is closed once the simulator's caches have synced and it handles events.
func (s *Simulator) Synced() <-chan struct{} { return s.synced }

// PodInformer and SliceInformer are the simulator's informers: the run's pods (trimPod) and the
// EndpointSlices it manages. Others may read their stores and add handlers (the harness's checks
// do, instead of caching the same 30,000 pods again at 10k bindings), never change their objects.
func (s *Simulator) PodInformer() cache.SharedIndexInformer   { return s.pods }
func (s *Simulator) SliceInformer() cache.SharedIndexInformer { return s.slices }

// Writes is the number of API writes the simulator made (pod status patches and slice updates).
func (s *Simulator) Writes() int64 { return s.writes.Load() }

// Pending is the number of pods and Services queued for the simulated kubelet and endpoint
// controller (not counting those being synced).
func (s *Simulator) Pending() int { return s.kubelet.Len() + s.endpoints.Len() }

func (s *Simulator) run(ctx context.Context, q workqueue.TypedRateLimitingInterface[types.NamespacedName],
	sync func(context.Context, types.NamespacedName) error) {
	for {
		key, shutdown := q.Get()
		if shutdown {
			return
		}
		if err := sync(ctx, key); err != nil {
			if !apierrors.IsConflict(err) {
				s.opts.Logger.V(1).Info("simulator retry", "key", key, "error", err.Error())
			}
			q.AddRateLimited(key)
		} else {
			q.Forget(key)
		}
		q.Done(key)
	}
}

// syncPod sets the pod's Ready condition by the kubelet rule, guarded by the cached resourceVersion.
func (s *Simulator) syncPod(ctx context.Context, key types.NamespacedName) error {
	obj, exists, err := s.pods.GetIndexer().GetByKey(key.String())
	if err != nil || !exists {
		return err
	}
	pod := obj.(*corev1.Pod)
	if !readyLags(pod) {
		return nil
	}
	patch, err := readyPatch(pod, time.Now())
	if err != nil {
		return err
	}
	err = s.c.Status().Patch(ctx, pod.DeepCopy(), client.RawPatch(types.StrategicMergePatchType, patch))
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err == nil {
		s.writes.Add(1)
	}
	return err
}

// readyPatch is a strategic merge patch of the pod's status setting the derived Ready condition, with
// the pod's resourceVersion as precondition (a newer pod conflicts and is handled by its own event).
// A strategic merge keeps the fields a patch leaves out, so reason and message are sent even when
// empty (PodCondition's JSON omits them): Ready turning True must drop the earlier
// "ReadinessGatesNotReady", as the kubelet's own status write does.
func readyPatch(pod *corev1.Pod, now time.Time) ([]byte, error) {
	want := ReadyCondition(pod)
	want.LastTransitionTime = metav1.NewTime(now)
	if have := PodCondition(pod, corev1.PodReady); have != nil && have.Status == want.Status {
		want.LastTransitionTime = have.LastTransitionTime
	}
	cond := map[string]any{"type": want.Type, "status": want.Status, "lastTransitionTime": want.LastTransitionTime,
		"reason": want.Reason, "message": want.Message}
	return json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": pod.ResourceVersion},
		"status":   map[string]any{"conditions": []any{cond}},
	})
}

// syncEndpoints brings the Service's EndpointSlice in line with its pods. The caches only decide
// whether there is work; the sync itself reads the API server (see SyncSlice), so a lagging cache
// never overwrites newer endpoints written by a mutation.
func (s *Simulator) syncEndpoints(ctx context.Context, key types.NamespacedName) error {
	objs, err := s.slices.GetIndexer().ByIndex(byService, key.String())
	if err != nil || len(objs) == 0 {
		return err
	}
	podObjs, err := s.pods.GetIndexer().ByIndex(byService, key.String())
	if err != nil {
		return err
	}
	if endpointsUpToDate(key.Name, typed[*discoveryv1.EndpointSlice](objs), typed[*corev1.Pod](podObjs)) {
		return nil
	}
	wrote, err := SyncSlice(ctx, s.c, key)
	if wrote {
		s.writes.Add(1)
	}
	return err
}

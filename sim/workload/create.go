package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Stats summarises a Create.
type Stats struct {
	// Objects is the number of Kubernetes objects created.
	Objects int
	// Writes is the number of Kubernetes API writes: creates plus status updates.
	Writes int
	// AWSCalls is the number of Provisioner calls.
	AWSCalls int
	// Elapsed is the wall time of the whole Create, AWS included.
	Elapsed time.Duration
}

// ObjectRate is Objects per second of Elapsed.
func (s Stats) ObjectRate() float64 { return perSecond(s.Objects, s.Elapsed) }

// WriteRate is Writes per second of Elapsed.
func (s Stats) WriteRate() float64 { return perSecond(s.Writes, s.Elapsed) }

func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// counters are the running totals of a Create.
type counters struct {
	objects, writes, aws atomic.Int64
	progress             *progress
}

func (c *counters) wrote(created bool) {
	if created {
		c.objects.Add(1)
	}
	c.writes.Add(1)
	c.progress.Add(1)
}

func (c *counters) called() {
	c.aws.Add(1)
	c.progress.Add(1)
}

// totalSteps is the number of writes and AWS calls Create will make (the progress total).
func (f *Fleet) totalSteps() int64 {
	pods := 0
	for _, t := range f.TGBs {
		pods += len(t.Pods)
	}
	perTGB := 3 // Service, EndpointSlice, TargetGroupBinding
	if f.Spec.ClusterEndpointSlices {
		perTGB = 2
	}
	kube := len(f.Namespaces) + 2*len(f.Nodes) + perTGB*len(f.TGBs) + 2*pods
	aws := len(f.SecurityGroupNames) + 1 + 2*len(f.Nodes) + len(f.TGBs) + pods // +1: the groups' tags; 2: instance, trunk
	return int64(kube + aws)
}

// Create creates the planned fleet: security groups, namespaces, nodes (with their instances and trunk
// ENIs), and per TGB its target group and pods' branch ENIs (AWS) and Service, Pods (with Running
// status), EndpointSlice and the TargetGroupBinding last, so a controller never sees a TGB whose parts
// are missing. Kubernetes writes run on opts.Concurrency workers, each carrying one TGB's chain at a
// time; AWS calls run on their own workers ahead of them. On success the Fleet is live and the
// mutations may be used. Create may be called once.
func (f *Fleet) Create(ctx context.Context, opts Options) (Stats, error) {
	opts.setDefaults()
	if err := opts.validate(); err != nil {
		return Stats{}, fmt.Errorf("workload options: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.live != nil {
		return Stats{}, errors.New("workload: fleet already created")
	}
	bg, cancel := context.WithCancel(context.WithoutCancel(ctx))
	live := &liveState{opts: opts, bg: bg, cancel: cancel}
	start := opts.now()
	cnt := &counters{progress: newProgress(opts.Progress, f.totalSteps(), opts.ProgressInterval, start)}
	defer cnt.progress.Finish()

	if err := f.createSecurityGroups(ctx, live, cnt); err != nil {
		cancel()
		return Stats{}, err
	}
	f.live = live // tgbObject reads the load balancer's group
	if err := f.createAll(ctx, live, cnt); err != nil {
		f.live = nil
		cancel()
		return Stats{}, err
	}
	st := Stats{
		Objects:  int(cnt.objects.Load()),
		Writes:   int(cnt.writes.Load()),
		AWSCalls: int(cnt.aws.Load()),
		Elapsed:  opts.now().Sub(start),
	}
	opts.Logger.Info("fleet created", "tgbs", len(f.TGBs), "objects", st.Objects, "writes", st.Writes,
		"awsCalls", st.AWSCalls, "elapsed", st.Elapsed, "writesPerSecond", st.WriteRate())
	return st, nil
}

func (f *Fleet) createSecurityGroups(ctx context.Context, live *liveState, cnt *counters) error {
	for _, name := range f.SecurityGroupNames {
		id, err := live.opts.AWS.CreateSecurityGroup(ctx, name, f.Spec.VpcID)
		if err != nil {
			return fmt.Errorf("creating security group %s: %w", name, err)
		}
		cnt.called()
		live.sgIDs = append(live.sgIDs, id)
	}
	live.lbSG = live.sgIDs[len(live.sgIDs)-1]
	if err := f.tagEndpointGroups(ctx, live); err != nil {
		return err
	}
	cnt.called()
	return nil
}

// createAll runs the namespace phase, then nodes and TGB chains on the worker pools.
func (f *Fleet) createAll(ctx context.Context, live *liveState, cnt *counters) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	fail := func(err error) { cancel(err) }
	c, opts := live.opts.Client, live.opts
	now := metav1.NewTime(opts.now())

	if err := WarmUp(ctx, c); err != nil {
		return err
	}
	// Namespaces first: everything else lives in them.
	runPool(ctx, opts.Concurrency, len(f.Namespaces), func(i int) {
		if err := createObject(ctx, c, f.namespaceObject(f.Namespaces[i], opts.Labels)); err != nil {
			fail(fmt.Errorf("creating namespace %s: %w", f.Namespaces[i], err))
			return
		}
		cnt.wrote(true)
	})
	if err := context.Cause(ctx); err != nil {
		return err
	}

	// AWS: instances, then per TGB its target group and pod ENIs, in the order the Kubernetes workers
	// consume them.
	awsDone := make([]chan struct{}, len(f.TGBs))
	for i := range awsDone {
		awsDone[i] = make(chan struct{})
	}
	var nodesSeeded sync.WaitGroup
	nodesSeeded.Add(1)
	var awsWG sync.WaitGroup
	awsWG.Go(func() {
		runPool(ctx, opts.AWSConcurrency, len(f.Nodes), func(i int) {
			if err := f.seedNode(ctx, live, f.Nodes[i]); err != nil {
				fail(err)
				return
			}
			cnt.called() // the instance
			cnt.called() // its trunk ENI
		})
		nodesSeeded.Done()
		runPool(ctx, opts.AWSConcurrency, len(f.TGBs), func(i int) {
			defer close(awsDone[i])
			if err := f.provisionTGB(ctx, live, f.TGBs[i], cnt); err != nil {
				fail(err)
			}
		})
	})

	// Kubernetes: nodes, then TGB chains.
	runPool(ctx, opts.Concurrency, len(f.Nodes)+len(f.TGBs), func(i int) {
		if i < len(f.Nodes) {
			if err := f.createNode(ctx, live, f.Nodes[i], now, cnt); err != nil {
				fail(err)
			}
			return
		}
		i -= len(f.Nodes)
		t := f.TGBs[i]
		if err := f.createTGBObjects(ctx, live, t, now, cnt); err != nil {
			fail(err)
			return
		}
		select {
		case <-awsDone[i]:
		case <-ctx.Done():
			return
		}
		nodesSeeded.Wait()
		if err := f.createTGB(ctx, live, t, cnt); err != nil {
			fail(err)
		}
	})
	awsWG.Wait()
	return context.Cause(ctx)
}

// WarmUp lists each kind the fleet writes once (at most one item), so that the client's REST mapping
// and the API server's serving state for the TargetGroupBinding resource (schema, CEL validators) are
// built before a timed phase, and waits out the API server's create delay for a just-established
// TargetGroupBinding CRD (see waitCRDSettled). Create calls it first.
func WarmUp(ctx context.Context, c client.Client) error {
	lists := []client.ObjectList{&v1beta1.TargetGroupBindingList{}, &corev1.PodList{}, &corev1.ServiceList{},
		&discoveryv1.EndpointSliceList{}, &corev1.NodeList{}, &corev1.NamespaceList{}, &corev1.ConfigMapList{}}
	errs := make([]error, len(lists))
	runPool(ctx, len(lists), len(lists), func(i int) {
		errs[i] = retryTransient(ctx, func() error { return c.List(ctx, lists[i], client.Limit(1)) })
	})
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("warm-up: %w", err)
	}
	return waitCRDSettled(ctx, c)
}

// crdSettle is how long after a CRD becomes Established kube-apiserver makes every create of its
// resource sleep 2 s (apiextensions' customresource_handler, so that HA peers see the CRD first). Right
// after envtest starts, every fleet worker would stall 2 s on its first TargetGroupBinding.
const crdSettle = 2 * time.Second

// waitCRDSettled waits until the TargetGroupBinding CRD has been Established for crdSettle, for at most
// crdSettle (the two clocks may differ). It is best effort: without read access to CRDs, or without the
// condition, it returns at once and the creates pay the delay instead.
func waitCRDSettled(ctx context.Context, c client.Client) error {
	crd := &unstructured.Unstructured{}
	crd.SetGroupVersionKind(schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	if err := c.Get(ctx, client.ObjectKey{Name: "targetgroupbindings." + v1beta1.GroupVersion.Group}, crd); err != nil {
		return ctx.Err()
	}
	since, ok := establishedAt(crd)
	if !ok {
		return ctx.Err()
	}
	// The API server compares against the same second-precision timestamp; the margin covers rounding.
	wait := min(time.Until(since.Add(crdSettle+50*time.Millisecond)), crdSettle+50*time.Millisecond)
	if wait <= 0 {
		return ctx.Err()
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(wait):
		return nil
	}
}

// establishedAt is the last transition time of a CRD's Established=True condition.
func establishedAt(crd *unstructured.Unstructured) (time.Time, bool) {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] != "Established" || m["status"] != "True" {
			continue
		}
		s, _ := m["lastTransitionTime"].(string)
		t, err := time.Parse(time.RFC3339, s)
		return t, err == nil
	}
	return time.Time{}, false
}

// runPool calls fn(0..n-1) on up to workers goroutines, stopping early when ctx is done.
func runPool(ctx context.Context, workers, n int, fn func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// provisionTGB creates the TGB's target group and seeds its pods' ENIs.
func (f *Fleet) provisionTGB(ctx context.Context, live *liveState, t *TGBPlan, cnt *counters) error {
	// The group's default port; targets always carry their own (NodePort or container port).
	arn, err := live.opts.AWS.CreateTargetGroup(ctx, t.TargetGroupName, t.TargetType, f.Spec.Port, f.Spec.VpcID)
	if err != nil {
		return fmt.Errorf("creating target group %s: %w", t.TargetGroupName, err)
	}
	cnt.called()
	t.TargetGroupARN = arn
	for _, p := range t.Pods {
		if err := f.seedENI(ctx, live, p); err != nil {
			return err
		}
		cnt.called()
	}
	return nil
}

// createNode creates a Node and makes sure its status (Ready, InternalIP) is set.
func (f *Fleet) createNode(ctx context.Context, live *liveState, n NodePlan, now metav1.Time, cnt *counters) error {
	c := live.opts.Client
	want := f.nodeObject(n, live.sgIDs[n.SecurityGroup], live.opts.Labels, now)
	obj := want.DeepCopy()
	if err := createObject(ctx, c, obj); err != nil {
		return fmt.Errorf("creating node %s: %w", n.Name, err)
	}
	cnt.wrote(true)
	if len(obj.Status.Conditions) == 0 { // the API server dropped the status on create
		obj.Status = want.Status
		if err := retryTransient(ctx, func() error { return c.Status().Update(ctx, obj) }); err != nil {
			return fmt.Errorf("setting status of node %s: %w", n.Name, err)
		}
	}
	cnt.wrote(false) // counted either way, so the progress total holds
	return nil
}

// createTGBObjects creates the Service, the pods with their status, and the EndpointSlice (unless the
// cluster's EndpointSlice controller writes it).
func (f *Fleet) createTGBObjects(ctx context.Context, live *liveState, t *TGBPlan, now metav1.Time, cnt *counters) error {
	c, run := live.opts.Client, live.opts.Labels
	svc := f.serviceObject(t, run)
	err := createObject(ctx, c, svc)
	if err != nil && t.NodePort != 0 && apierrors.IsInvalid(err) && strings.Contains(err.Error(), "already allocated") {
		// A real cluster may already use the planned NodePort: let the API server pick one.
		live.opts.Logger.Info("planned NodePort taken, using an allocated one", "service", t.Key(), "nodePort", t.NodePort)
		svc = f.serviceObject(t, run)
		svc.Spec.Ports[0].NodePort = 0
		if err = createObject(ctx, c, svc); err == nil {
			t.NodePort = svc.Spec.Ports[0].NodePort
		}
	}
	if err != nil {
		return fmt.Errorf("creating service %s/%s: %w", t.Namespace, t.Name, err)
	}
	cnt.wrote(true)
	pods := make([]*corev1.Pod, 0, len(t.Pods))
	for _, p := range t.Pods {
		pod, err := f.startPod(ctx, live, t, p, now)
		if err != nil {
			return err
		}
		cnt.wrote(true)
		cnt.wrote(false)
		pods = append(pods, pod)
	}
	if f.Spec.ClusterEndpointSlices {
		return nil
	}
	if err := createObject(ctx, c, f.sliceObject(t, pods, run)); err != nil {
		return fmt.Errorf("creating endpointslice of %s/%s: %w", t.Namespace, t.Name, err)
	}
	cnt.wrote(true)
	return nil
}

// startPod creates a pod and gives it the status of a started pod (two writes).
func (f *Fleet) startPod(ctx context.Context, live *liveState, t *TGBPlan, p PodPlan, now metav1.Time) (*corev1.Pod, error) {
	c := live.opts.Client
	pod := f.podObject(t, p, live.sgIDs[p.SecurityGroup], live.opts.Labels)
	if err := createObject(ctx, c, pod); err != nil {
		return nil, fmt.Errorf("creating pod %s/%s: %w", t.Namespace, p.Name, err)
	}
	pod.Status = f.runningStatus(pod, p, now)
	if err := retryTransient(ctx, func() error { return c.Status().Update(ctx, pod) }); err != nil {
		return nil, fmt.Errorf("setting status of pod %s/%s: %w", t.Namespace, p.Name, err)
	}
	return pod, nil
}

func (f *Fleet) createTGB(ctx context.Context, live *liveState, t *TGBPlan, cnt *counters) error {
	if err := createObject(ctx, live.opts.Client, f.tgbObject(t, live.opts.Labels)); err != nil {
		return fmt.Errorf("creating targetgroupbinding %s/%s: %w", t.Namespace, t.Name, err)
	}
	cnt.wrote(true)
	return nil
}

// createObject creates obj, retrying transient errors; if a retried create finds the object already there
// (the first attempt succeeded after all), it reads it back into obj.
func createObject(ctx context.Context, c client.Client, obj client.Object) error {
	attempt := 0
	return retryTransient(ctx, func() error {
		attempt++
		err := c.Create(ctx, obj)
		if apierrors.IsAlreadyExists(err) && attempt > 1 {
			return c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		}
		return err
	})
}

// retryTransient retries fn on errors an overloaded API server returns, with a short backoff.
func retryTransient(ctx context.Context, fn func() error) error {
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt == 8 || !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay *= 2
	}
}

func transient(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err)
}

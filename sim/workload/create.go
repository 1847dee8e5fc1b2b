package workload

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/sim/apiretry"
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
func (f *FleetPlan) totalSteps() int64 {
	pods, dups := 0, 0
	for _, t := range f.TGBs {
		pods += len(t.Pods)
		if t.DuplicateEndpoint {
			dups++
		}
	}
	perTGB := 3 // Service, EndpointSlice, TargetGroupBinding
	if f.Spec.ClusterEndpointSlices {
		perTGB = 2
	}
	kube := len(f.Namespaces) + 2*len(f.Nodes) + perTGB*len(f.TGBs) + 2*pods + dups
	aws := len(f.SecurityGroupNames) + 1 + 2*len(f.Nodes) + len(f.TGBs) + pods // +1: the groups' tags; 2: instance, trunk
	return int64(kube+aws) + f.ingressSteps()
}

// Create creates the planned fleet: security groups, namespaces, nodes (with their instances and trunk
// ENIs), and per TGB its target group and pods' branch ENIs (AWS) and Service, Pods (with Running
// status), EndpointSlice and the TargetGroupBinding last, so a controller never sees a TGB whose parts
// are missing. Kubernetes writes run on opts.Concurrency workers, each carrying one TGB's chain at a
// time; AWS calls run on their own workers ahead of them. On success the FleetPlan is live and the
// mutations may be used. Create may be called once.
func (f *FleetPlan) Create(ctx context.Context, opts Options) (Stats, error) {
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
	start := opts.Clock.Now()
	cnt := &counters{progress: newProgress(opts.Progress, f.totalSteps(), opts.ProgressInterval, opts.Clock)}
	defer cnt.progress.Finish()

	if err := f.createSecurityGroups(ctx, live, cnt); err != nil {
		cancel()
		return Stats{}, err
	}
	f.live = live // tgbObject reads the load balancer's group
	err := f.createAll(ctx, live, cnt)
	if err == nil {
		err = f.createIngressSide(ctx, live, cnt)
	}
	if err != nil {
		f.live = nil
		cancel()
		return Stats{}, err
	}
	st := Stats{
		Objects:  int(cnt.objects.Load()),
		Writes:   int(cnt.writes.Load()),
		AWSCalls: int(cnt.aws.Load()),
		Elapsed:  opts.Clock.Since(start),
	}
	opts.Logger.Info("fleet created", "tgbs", len(f.TGBs), "ingresses", len(f.IngressPlans),
		"loadBalancerServices", len(f.LoadBalancerServices), "objects", st.Objects, "writes", st.Writes,
		"awsCalls", st.AWSCalls, "elapsed", st.Elapsed, "writesPerSecond", st.WriteRate())
	return st, nil
}

func (f *FleetPlan) createSecurityGroups(ctx context.Context, live *liveState, cnt *counters) error {
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
func (f *FleetPlan) createAll(ctx context.Context, live *liveState, cnt *counters) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	fail := func(err error) { cancel(err) }
	c, opts := live.opts.Client, live.opts
	now := metav1.NewTime(opts.Clock.Now())

	if err := WarmUp(ctx, c); err != nil {
		return err
	}
	// Namespaces first: everything else lives in them.
	runPool(ctx, opts.Concurrency, len(f.Namespaces), func(i int) {
		if err := apiretry.Create(ctx, c, f.namespaceObject(f.Namespaces[i], opts.Labels)); err != nil {
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

package controller

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	elbtypes "github.com/aws/aws-sdk-go-v2/service/elasticloadbalancingv2/types"
	"github.com/prometheus/client_golang/prometheus/testutil"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/checkpoint"
	"github.com/restartsim/restartsim/controller/internal/metrics"
	"github.com/restartsim/restartsim/controller/internal/readinessgate"
	"github.com/restartsim/restartsim/internal/testwait"
)

func resumeOptions(ns string) Options {
	o := testOptions(CheckpointAnnotation)
	o.Resume = true
	o.ResumeNamespace = ns
	o.ResumeInterval = 100 * time.Millisecond
	return o
}

// slowPodLists holds back every request for a namespace's pod collection (the informer's list
// or watch-list), so the controller's caches cannot sync before it releases them.
type slowPodLists struct {
	next  http.RoundTripper
	delay time.Duration

	mu         sync.Mutex
	releasedAt time.Time
}

func (s *slowPodLists) RoundTrip(req *http.Request) (*http.Response, error) {
	if strings.HasSuffix(req.URL.Path, "/pods") && req.Method == http.MethodGet {
		time.Sleep(s.delay)
		s.mu.Lock()
		if s.releasedAt.IsZero() {
			s.releasedAt = time.Now()
		}
		s.mu.Unlock()
	}
	return s.next.RoundTrip(req)
}

// holdCaches is a manager option hook whose cache sends its requests through slow (installed
// under ManagerOptions' hold, which wraps whatever NewCache is).
func holdCaches(slow *slowPodLists) func(*manager.Options) {
	return func(o *manager.Options) {
		newCache := o.NewCache
		if newCache == nil {
			newCache = cache.New
		}
		o.NewCache = func(c *rest.Config, co cache.Options) (cache.Cache, error) {
			hc, err := rest.HTTPClientFor(c)
			if err != nil {
				return nil, err
			}
			slow.next = hc.Transport
			hc.Transport = slow
			co.HTTPClient = hc
			return newCache(c, co)
		}
	}
}

func (s *slowPodLists) released() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.releasedAt
}

// waitWatermark waits until the running controller has recorded a watermark at or after since.
func waitWatermark(t *testing.T, ns string, since time.Time) Watermark {
	t.Helper()
	var w Watermark
	testwait.Until(t, 10*time.Second, "resume watermark", func() bool {
		got, ok, err := ReadWatermark(context.Background(), k8s, ns, DefaultLeaderElectionID)
		if err != nil {
			t.Fatal(err)
		}
		w = got
		return ok && !got.RecordedAt.Before(since)
	})
	return w
}

// TestResumeBeforeCacheSync: with Resume, a change made while the controller was down reaches
// AWS before the restarted controller's caches have synced (its pod list is held back 4 s), and
// an unchanged binding still makes no AWS call.
func TestResumeBeforeCacheSync(t *testing.T) {
	ns := newNamespace(t)
	arnA := createTargetGroup(t, ns+"-a", elbtypes.TargetTypeEnumIp)
	arnB := createTargetGroup(t, ns+"-b", elbtypes.TargetTypeEnumIp)
	epsA := backend(t, ns, "a", 40, 2)
	epsB := backend(t, ns, "b", 41, 2)
	create(t, mkTGB(ns, "a", "a", arnA, v1beta1.TargetTypeIP), mkTGB(ns, "b", "b", arnB, v1beta1.TargetTypeIP))
	first := startController(t, ns, resumeOptions(ns))
	for _, n := range []string{"a", "b"} {
		testwait.Until(t, 10*time.Second, "checkpoint "+n, func() bool { return checkpoint.IsSet(getTGB(t, ns, n).Annotations) })
	}
	waitWatermark(t, ns, time.Now())
	first.stop()

	newB := append([]epRef{epsB[0]}, epRef{pod: epsB[1].pod, ip: "10.0.41.99", ready: true})
	setSliceEndpoints(t, ns, "b-slice", newB...)
	since := aws_.Recorder().Len()
	second := callingBeforeSync(t, ns, since, arnB, "RegisterTargets")
	testwait.Until(t, 10*time.Second, "b's targets", func() bool { return sameSet(liveTargets(t, arnB), targetKeys(newB)...) })
	if n := testutil.ToFloat64(second.c.metrics.ResumeReconciles.WithLabelValues(metrics.ResultFull)); n < 1 {
		t.Fatalf("fast-path full reconciles = %v", n)
	}
	testwait.Until(t, 10*time.Second, "b checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "b").Annotations) })
	second.waitReconciled(t, ns, []string{"a"}) // a's reconcile on the normal path has finished
	if calls := callsFor(since, arnA); len(calls) != 0 {
		t.Fatalf("unchanged binding made %d AWS calls after the restart: %+v", len(calls), calls)
	}
	if !sameSet(liveTargets(t, arnA), targetKeys(epsA)...) {
		t.Fatal("a's targets changed")
	}
}

// callingBeforeSync starts a resume controller whose caches cannot sync for 4 s (its pod lists are
// held back) and checks that it called op (RegisterTargets, DeregisterTargets) on arn (AWS calls
// after since) before they did: on the fast path.
func callingBeforeSync(t *testing.T, ns string, since int, arn, op string) *running {
	t.Helper()
	slow := &slowPodLists{delay: 4 * time.Second}
	r, _ := startManager(t, ns, resumeOptions(ns), holdCaches(slow))
	// startManager returned after the caches synced, i.e. after the pod lists were released.
	released := slow.released()
	if released.IsZero() {
		t.Fatal("the pod list was never requested")
	}
	if called := firstCall(since, arn, op); called.IsZero() || !called.Before(released) {
		t.Fatalf("%s on %s at %v, pod lists released at %v: want the fast path before the caches synced", op, arn, called, released)
	}
	return r
}

// stoppedAfterCheckpoint sets up a namespace with one IP binding "web" (endpoints 10.0.<third>.1
// and .2), which a resume controller checkpointed and watermarked past every write before it
// stopped.
func stoppedAfterCheckpoint(t *testing.T, third int) (ns, arn string, eps []epRef, wm Watermark) {
	t.Helper()
	ns = newNamespace(t)
	arn = createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	eps = backend(t, ns, "web", third, 2)
	create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	first := startController(t, ns, resumeOptions(ns))
	testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
	return ns, arn, eps, stopPastSettled(t, ns, first)
}

// TestResumeStaleWatermark: a watermark recorded long ago (30 resume intervals) makes the fast
// path give up rather than replay most of the fleet; the normal path still applies the change.
func TestResumeStaleWatermark(t *testing.T) {
	ns, arn, eps, _ := stoppedAfterCheckpoint(t, 42)
	stale := Watermark{ResourceVersion: "2", RecordedAt: time.Now().Add(-time.Hour)}
	if err := writeWatermark(context.Background(), k8s, ns, DefaultLeaderElectionID, stale); err != nil {
		t.Fatal(err)
	}

	next := append(eps, epRef{pod: eps[0].pod, ip: "10.0.42.77", ready: true})
	setSliceEndpoints(t, ns, "web-slice", next...)
	second := startController(t, ns, resumeOptions(ns))
	testwait.Until(t, 10*time.Second, "targets", func() bool { return sameSet(liveTargets(t, arn), targetKeys(next)...) })
	for _, r := range []string{metrics.ResultFull, metrics.ResultEarlyExit, metrics.ResultError} {
		if n := testutil.ToFloat64(second.c.metrics.ResumeReconciles.WithLabelValues(r)); n != 0 {
			t.Fatalf("fast path reconciled (%s: %v) from a stale watermark", r, n)
		}
	}
}

// listRecorder records the query of every list request whose path ends in one of suffixes.
type listRecorder struct {
	suffixes []string

	mu      sync.Mutex
	queries []url.Values
}

// wrap is a rest.Config's WrapTransport.
func (l *listRecorder) wrap(next http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		q := req.URL.Query()
		if req.Method == http.MethodGet && q.Get("watch") == "" {
			for _, s := range l.suffixes {
				if strings.HasSuffix(req.URL.Path, s) {
					l.mu.Lock()
					l.queries = append(l.queries, q)
					l.mu.Unlock()
				}
			}
		}
		return next.RoundTrip(req)
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// TestResumeListsSlicesAtTheirEvent: the fast path lists a Service's EndpointSlices at or after
// the newest slice event it took (resourceVersionMatch NotOlderThan), not as a consistent read
// that may wait for an etcd progress notification; a Service's bindings, which it reconciles
// without reading them again, it still lists consistently.
func TestResumeListsSlicesAtTheirEvent(t *testing.T) {
	ns, arn, eps, wm := stoppedAfterCheckpoint(t, 43)

	next := append(eps, epRef{pod: eps[0].pod, ip: "10.0.43.77", ready: true})
	setSliceEndpoints(t, ns, "web-slice", next...)
	var slice discoveryv1.EndpointSlice
	if err := k8s.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: "web-slice"}, &slice); err != nil {
		t.Fatal(err)
	}
	if c, err := resourceversion.CompareResourceVersion(slice.ResourceVersion, wm.ResourceVersion); err != nil || c <= 0 {
		t.Fatalf("slice at %s, watermark at %s: want the change after the watermark (%v)", slice.ResourceVersion, wm.ResourceVersion, err)
	}
	rec := &listRecorder{suffixes: []string{"/targetgroupbindings", "/endpointslices"}}
	recorded := rest.CopyConfig(cfg)
	recorded.WrapTransport = rec.wrap
	opts := resumeOptions(ns)
	opts.Namespaces = []string{ns}
	startManagerAs(t, recorded, opts, nil)
	testwait.Until(t, 10*time.Second, "targets", func() bool { return sameSet(liveTargets(t, arn), targetKeys(next)...) })
	// A reconcile an earlier replayed event started may list at the watermark; the slice event's
	// own reconcile (queued after it was taken) lists at its resource version.
	atLeast := func(q url.Values, rv string) bool {
		c, err := resourceversion.CompareResourceVersion(q.Get("resourceVersion"), rv)
		return q.Get("resourceVersionMatch") == string(metav1.ResourceVersionMatchNotOlderThan) && err == nil && c >= 0
	}
	testwait.Until(t, 10*time.Second, "a slice list at the slice event", func() bool {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return slices.ContainsFunc(rec.queries, func(q url.Values) bool {
			return q.Get("labelSelector") != "" && atLeast(q, slice.ResourceVersion)
		})
	})
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var bindingLists int
	for _, q := range rec.queries {
		switch {
		case q.Get("fieldSelector") != "": // a Service's bindings
			bindingLists++
			if q.Get("resourceVersion") != "" {
				t.Errorf("bindings listed at %v: want a consistent list", q)
			}
		case q.Get("labelSelector") != "": // a Service's slices
			if !atLeast(q, wm.ResourceVersion) {
				t.Errorf("slices listed at %v: want NotOlderThan the watermark %s", q, wm.ResourceVersion)
			}
		}
	}
	if bindingLists == 0 {
		t.Fatalf("no fast-path list of bindings (queries %v)", rec.queries)
	}
}

// TestResumeTakesGatedPodChanges: a gated pod whose containers became ready while the controller
// was down changes its binding's targets but not its EndpointSlice (the pod is not Ready until
// the gate is): the fast path takes the pod's own event and registers the target before the
// caches have synced.
func TestResumeTakesGatedPodChanges(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumIp)
	gate := string(readinessgate.ConditionType("web"))
	eps := backend(t, ns, "web", 44, 2, gate)
	late := mkPod(ns, eps[1].pod)
	setContainersReady(t, late, false)
	notReady := []epRef{{pod: eps[0].pod, ip: eps[0].ip}, {pod: eps[1].pod, ip: eps[1].ip}}
	setSliceEndpoints(t, ns, "web-slice", notReady...) // held back by the gate; the slice never changes again
	create(t, mkTGB(ns, "web", "web", arn, v1beta1.TargetTypeIP))
	first := startController(t, ns, resumeOptions(ns))
	testwait.Until(t, 10*time.Second, "first pod's gate True", func() bool { return gateStatus(t, ns, eps[0].pod, "web") == corev1.ConditionTrue })
	testwait.Until(t, 10*time.Second, "checkpoint and status", func() bool {
		tgb := getTGB(t, ns, "web")
		return checkpoint.IsSet(tgb.Annotations) && ptr.Deref(tgb.Status.ObservedGeneration, 0) == tgb.Generation
	})
	if !sameSet(liveTargets(t, arn), targetKeys(eps[:1])...) {
		t.Fatalf("targets %v before the restart: want only the ready pod's", liveTargets(t, arn))
	}
	// Only the pod's event may start the fast path.
	stopPastSettled(t, ns, first)

	setContainersReady(t, late, true)
	callingBeforeSync(t, ns, aws_.Recorder().Len(), arn, "RegisterTargets")
	testwait.Until(t, 10*time.Second, "both targets", func() bool { return sameSet(liveTargets(t, arn), targetKeys(eps)...) })
	testwait.Until(t, 10*time.Second, "second pod's gate True", func() bool { return gateStatus(t, ns, eps[1].pod, "web") == corev1.ConditionTrue })
}

// stopPastSettled stops a resume controller once it has recorded a watermark past every write so
// far, so that only later changes reach the next instance's fast path; it returns that watermark.
func stopPastSettled(t *testing.T, ns string, r *running) Watermark {
	t.Helper()
	settled, err := CurrentResourceVersion(context.Background(), k8s, ns)
	if err != nil {
		t.Fatal(err)
	}
	var w Watermark
	testwait.Until(t, 10*time.Second, "watermark past the settled state", func() bool {
		w = waitWatermark(t, ns, time.Now())
		c, err := resourceversion.CompareResourceVersion(w.ResourceVersion, settled)
		return err == nil && c >= 0
	})
	r.stop()
	return w
}

// TestResumeTakesNodeChanges: nodes replaced while the controller was down (one NotReady, one
// new) change an instance binding's targets (its targetType unset) before the restarted
// controller's caches have synced; a later restart after nothing but a node heartbeat reconciles
// nothing on the fast path.
func TestResumeTakesNodeChanges(t *testing.T) {
	ns := newNamespace(t)
	arn := createTargetGroup(t, ns, elbtypes.TargetTypeEnumInstance)
	create(t, mkService(ns, "web", 30081))
	id0, id1 := createNode(t, ns, 0, "web", true), createNode(t, ns, 1, "web", true)
	tgb := mkInstanceTGB(ns, "web", arn)
	tgb.Spec.TargetType = nil // read from the target group: the fast path's field selector must still find it
	create(t, tgb)
	first := startController(t, ns, resumeOptions(ns))
	testwait.Until(t, 10*time.Second, "two instance targets", func() bool { return sameSet(liveTargets(t, arn), id0+":30081", id1+":30081") })
	testwait.Until(t, 10*time.Second, "checkpoint", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
	stopPastSettled(t, ns, first)

	setNodeReady(t, ns+"-n1", corev1.ConditionFalse)
	id2 := createNode(t, ns, 2, "web", true)
	second := callingBeforeSync(t, ns, aws_.Recorder().Len(), arn, "RegisterTargets")
	testwait.Until(t, 10*time.Second, "n1 replaced by n2", func() bool { return sameSet(liveTargets(t, arn), id0+":30081", id2+":30081") })
	testwait.Until(t, 10*time.Second, "checkpoint after the replacement", func() bool { return checkpoint.IsSet(getTGB(t, ns, "web").Annotations) })
	stopPastSettled(t, ns, second)

	setNodeReady(t, ns+"-n0", corev1.ConditionTrue) // a kubelet's status report: a heartbeat only
	since := aws_.Recorder().Len()
	third, _ := startManager(t, ns, resumeOptions(ns), holdCaches(&slowPodLists{delay: time.Second}))
	if n := fastPathReconciles(t, third); n != 0 {
		t.Fatalf("%v fast-path reconciles after a node heartbeat, want none", n)
	}
	if calls := callsFor(since, arn); len(calls) != 0 {
		t.Fatalf("AWS calls after a node heartbeat: %+v", calls)
	}
}

// fastPathReconciles is the controller's tgb_resume_reconciles_total, summed over results.
func fastPathReconciles(t *testing.T, r *running) float64 {
	t.Helper()
	families, err := r.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for _, f := range families {
		if f.GetName() != "tgb_resume_reconciles_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			sum += m.GetCounter().GetValue()
		}
	}
	return sum
}

// TestResumeDeregistersDeletedBindings: a binding deleted while the controller was down (held by
// its finalizer) has its targets deregistered before the restarted controller's caches have
// synced; the normal path then drops its finalizer.
func TestResumeDeregistersDeletedBindings(t *testing.T) {
	ns, arn, eps, _ := stoppedAfterCheckpoint(t, 46)
	if !sameSet(liveTargets(t, arn), targetKeys(eps)...) {
		t.Fatalf("targets %v before the deletion", liveTargets(t, arn))
	}
	if err := k8s.Delete(context.Background(), getTGB(t, ns, "web")); err != nil {
		t.Fatal(err)
	}
	callingBeforeSync(t, ns, aws_.Recorder().Len(), arn, "DeregisterTargets")
	testwait.Until(t, 10*time.Second, "no targets", func() bool { return len(liveTargets(t, arn)) == 0 })
	testwait.Until(t, 10*time.Second, "binding gone", func() bool {
		return apierrors.IsNotFound(k8s.Get(context.Background(), clientKey(ns, "web"), &v1beta1.TargetGroupBinding{}))
	})
}

package resume

import (
	"context"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
)

// Reads are how a fast-path reconcile reads the API server: the options of its live lists of
// EndpointSlices and Nodes, and where it notes its own readiness gate writes for the pod watch
// to skip.
type Reads struct {
	SliceOptions, NodeOptions []client.ListOption
	gateWrites                *sync.Map
}

// GateWritten notes that the reconcile patched pod's readiness gate, leaving the pod at
// resourceVersion: the watch's event of that write changes nothing the binding depends on.
func (r *Reads) GateWritten(pod types.NamespacedName, resourceVersion string) {
	r.gateWrites.Store(pod, resourceVersion)
}

// reconcile has one binding reconciled with live reads, from the Service list that mapped an
// event to it or else read now; it returns the requeue delay asked for. A binding that cannot
// be read is left to the normal path.
func (f *FastPath) reconcile(ctx context.Context, key types.NamespacedName) time.Duration {
	f.mu.Lock()
	tgb := f.listed[key]
	delete(f.listed, key)
	f.mu.Unlock()
	if tgb == nil {
		tgb = &v1beta1.TargetGroupBinding{}
		if err := f.cfg.Reader.Get(ctx, key, tgb); err != nil {
			return 0
		}
	}
	svc := types.NamespacedName{Namespace: tgb.Namespace, Name: tgb.Spec.ServiceRef.Name}
	return f.cfg.Reconciler.ReconcileLive(ctx, tgb, &Reads{
		SliceOptions: f.sliceListOptions(svc), NodeOptions: f.nodeListOptions(), gateWrites: &f.gateWrites})
}

// nodeListOptions read the nodes at or after the watermark and the newest node event taken, for
// the same reason as sliceListOptions.
func (f *FastPath) nodeListOptions() []client.ListOption {
	f.mu.Lock()
	rv := newerRV(f.watermark, f.nodeRV)
	f.mu.Unlock()
	return notOlderThan(rv)
}

func notOlderThan(rv string) []client.ListOption {
	return []client.ListOption{&client.ListOptions{Raw: &metav1.ListOptions{
		ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan}}}
}

// sliceListOptions read a Service's EndpointSlices at or after the watermark and the newest of
// its slice events the fast path took, instead of consistently. A consistent list waits until
// the API server's watch cache has caught up with etcd's newest revision; once the fast path's own
// binding patches are the newest writes, the slices' cache gets there only with an etcd progress
// notification, which the API server requests at most every 100 ms (at 10k bindings, slice lists
// took 36-89 ms against 4-11 ms). The slices need not be newer: a later change of them is an
// event the fast path takes and reconciles again, and an event taken is in the watch cache of the
// API server that sent it (waiting for the event's resource version also holds an API server
// behind the same load balancer whose cache lags that one).
func (f *FastPath) sliceListOptions(svc types.NamespacedName) []client.ListOption {
	f.mu.Lock()
	rv := newerRV(f.watermark, f.sliceRV[svc])
	f.mu.Unlock()
	return notOlderThan(rv)
}

// newerRV is the newer of two resource versions; a if b is empty or not comparable.
func newerRV(a, b string) string {
	if c, err := resourceversion.CompareResourceVersion(a, b); err == nil && c < 0 {
		return b
	}
	return a
}

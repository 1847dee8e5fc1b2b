package lb_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/controller"
	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/lb"
	"github.com/restartsim/restartsim/internal/testwait"
)

// countingBindingWrites makes the manager's client count into n its creates, updates and patches of
// TargetGroupBindings. Not counted: status writes, and patches of only the finalizer and
// annotations, which the TargetGroupBinding controller in the same manager makes on its own schedule
// (a restart right after a deploy can catch it before its checkpoint was written).
func countingBindingWrites(n *atomic.Int64) func(*manager.Options) {
	isBinding := func(obj client.Object) bool { _, ok := obj.(*v1beta1.TargetGroupBinding); return ok }
	return func(o *manager.Options) {
		o.NewClient = func(cfg *rest.Config, opts client.Options) (client.Client, error) {
			c, err := client.NewWithWatch(cfg, opts)
			if err != nil {
				return nil, err
			}
			return interceptor.NewClient(c, interceptor.Funcs{
				Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
					if isBinding(obj) {
						n.Add(1)
					}
					return c.Create(ctx, obj, opts...)
				},
				Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
					if isBinding(obj) {
						n.Add(1)
					}
					return c.Update(ctx, obj, opts...)
				},
				Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
					if isBinding(obj) && !onlyFinalizersOrAnnotations(p, obj) {
						n.Add(1)
					}
					return c.Patch(ctx, obj, p, opts...)
				},
			}), nil
		}
	}
}

// onlyFinalizersOrAnnotations reports whether a JSON merge patch sets nothing but metadata's
// finalizers and annotations, the TargetGroupBinding controller's bookkeeping; a patch that cannot
// be read does not qualify.
func onlyFinalizersOrAnnotations(p client.Patch, obj client.Object) bool {
	data, err := p.Data(obj)
	if err != nil {
		return false
	}
	var body map[string]map[string]json.RawMessage
	if err := json.Unmarshal(data, &body); err != nil || len(body) != 1 {
		return false
	}
	meta, ok := body["metadata"]
	if !ok {
		return false
	}
	for k := range meta {
		if k != "finalizers" && k != "annotations" {
			return false
		}
	}
	return true
}

// TestLBRedeployOfAnUnchangedStackWritesNoBinding: without a model checkpoint every stack is deployed
// again after a restart; its TargetGroupBindings are already what the stack wants, so the reconciler
// must not write them (a write would wake the TargetGroupBinding controller for nothing).
func TestLBRedeployOfAnUnchangedStackWritesNoBinding(t *testing.T) {
	ns := newNamespace(t)
	opts := lbTestOptions(ns, controller.ModelCheckpointNone)
	deployShop(t, ns, opts).stop()
	var writes atomic.Int64
	r := startManager(t, ns, opts, countingBindingWrites(&writes))
	testwait.Until(t, 30*time.Second, "a redeploy after the restart", func() bool { return ingressCounter(t, r, lb.ResultDeployed) >= 1 })
	waitStackBindingsReconciled(t, r, ns, shopID) // the controller that would write them has seen them
	if n := writes.Load(); n != 0 {
		t.Fatalf("redeploying an unchanged stack wrote TargetGroupBindings %d times, want 0", n)
	}
	if got := len(stackTGBs(t, ns, shopID)); got != 2 {
		t.Fatalf("bindings of the stack = %d, want 2", got)
	}
}

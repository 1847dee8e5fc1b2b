package objects

import (
	"context"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultConcurrency is how many objects are created or patched at once unless the options say otherwise.
const DefaultConcurrency = 32

// CreateOptions configure Fleet.Create.
type CreateOptions struct {
	// Concurrency bounds the creates in flight. Default DefaultConcurrency.
	Concurrency int
	// Progress, when set, is called after each object of a group is created (or found to exist), with the
	// group's count so far. It may be called from several goroutines at once.
	Progress func(group string, done, total int)
	// WaitReady blocks until every object of groups is ready (ReadyWaiter makes one). Create calls it before
	// a group that comes after others; required when one does.
	WaitReady func(ctx context.Context, groups []string) error
}

func (o CreateOptions) concurrency() int {
	if o.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return o.Concurrency
}

// Create creates every group's objects, wave by wave of Order: a group's objects once the groups it comes
// after are ready. An object that exists already counts as created, so a retried Create carries on.
func (f *Fleet) Create(ctx context.Context, c client.Client, env Env, opts CreateOptions) error {
	for _, wave := range f.order {
		var after []string
		for _, name := range wave {
			after = append(after, f.byName[name].After...)
		}
		if len(after) > 0 {
			if opts.WaitReady == nil {
				return fmt.Errorf("groups %v come after %v: CreateOptions.WaitReady is needed", wave, after)
			}
			if err := opts.WaitReady(ctx, after); err != nil {
				return err
			}
		}
		for _, name := range wave {
			if err := f.CreateGroup(ctx, c, env, name, opts); err != nil {
				return err
			}
		}
	}
	return nil
}

// CreateGroup creates one group's objects (without waiting for the groups it comes after).
func (f *Fleet) CreateGroup(ctx context.Context, c client.Client, env Env, group string, opts CreateOptions) error {
	g := f.byName[group]
	if g == nil {
		return fmt.Errorf("unknown group %q%s", group, f.known())
	}
	var done atomic.Int64
	eg, egctx := errgroup.WithContext(ctx)
	eg.SetLimit(opts.concurrency())
	for i := range g.Count {
		if egctx.Err() != nil {
			break
		}
		eg.Go(func() error {
			u, err := f.Render(env, group, i)
			if err != nil {
				return fmt.Errorf("group %s object %d: %w", group, i, err)
			}
			if err := createObject(egctx, c, u, group, i); err != nil {
				return err
			}
			if n := done.Add(1); opts.Progress != nil {
				opts.Progress(group, int(n), g.Count)
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	return ctx.Err()
}

// createObject creates one object of a group; one that exists already counts as created.
func createObject(ctx context.Context, c client.Client, u *unstructured.Unstructured, group string, index int) error {
	status, hasStatus := u.Object["status"]
	if err := c.Create(ctx, u); err != nil {
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("creating %s %s (group %s object %d): %w", u.GetKind(), keyOf(u), group, index, err)
		}
		hasStatus = false // made by an earlier Create, status included
	}
	if hasStatus {
		// The API server drops a new object's status; what writes it on a real cluster (a kubelet, the
		// object's controller) is not running, so the template's is written as it would.
		u.Object["status"] = status
		if err := c.Status().Update(ctx, u); err != nil {
			return fmt.Errorf("writing the status of %s %s (group %s object %d): %w", u.GetKind(), keyOf(u), group, index, err)
		}
	}
	return nil
}

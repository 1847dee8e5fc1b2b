package objects

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultConcurrency is how many objects are created or patched at once unless the options say otherwise.
const DefaultConcurrency = 32

// CreateOptions configure CompiledGroups.CreateGroup.
type CreateOptions struct {
	// Concurrency bounds the creates in flight. Default DefaultConcurrency.
	Concurrency int
}

func (o CreateOptions) concurrency() int {
	if o.Concurrency <= 0 {
		return DefaultConcurrency
	}
	return o.Concurrency
}

// CreateGroup creates one group's objects (without waiting for the groups it comes after: the harness
// creates the groups wave by wave of Order, each once its watch sees the groups before it ready). An
// object that exists already counts as created, so a retried CreateGroup carries on.
func (f *CompiledGroups) CreateGroup(ctx context.Context, c client.Client, env Env, group string, opts CreateOptions) error {
	g := f.byName[group]
	if g == nil {
		return fmt.Errorf("unknown group %q%s", group, f.known())
	}
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
			return createObject(egctx, c, u, group, i)
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
		hasStatus = false // made by an earlier CreateGroup, status included
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

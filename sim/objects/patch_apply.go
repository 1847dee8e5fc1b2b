package objects

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// PatchOptions say which objects Patcher.Apply changes and how.
type PatchOptions struct {
	// Count is how many distinct objects to patch, 1 to the group's count.
	Count int
	// Rand chooses the objects (Choose); the caller seeds it, so that a run can be replayed. Required.
	Rand *rand.Rand
	// FirstSeq is the first change's sequence number ({{.Seq}}); the i-th chosen object gets FirstSeq+i.
	FirstSeq int
	// Concurrency bounds the patches in flight. Default DefaultConcurrency.
	Concurrency int
	// AWS, when set, finds the ARN of a resource the group names by AWS name at the patch. Default nil: the
	// ARN is known at the patch only when the group's aws.arn gives it (see Change.ResolveARN).
	AWS AWSState
}

// Choose picks count distinct object indexes of the patch's group with rng (Floyd's sampling: count draws,
// whatever the group's size), in ascending order.
func (pt *Patcher) Choose(rng *rand.Rand, count int) ([]int, error) {
	n := pt.g.Count
	if count < 1 || count > n {
		return nil, fmt.Errorf("cannot choose %d of group %s's %d objects", count, pt.g.Name, n)
	}
	chosen := make(map[int]bool, count)
	out := make([]int, 0, count)
	for j := n - count; j < n; j++ {
		t := rng.IntN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		out = append(out, t)
	}
	slices.Sort(out)
	return out, nil
}

// Apply patches opts.Count chosen objects with the merge patch (rendered per object) and returns the changes
// made, in index order. Objects patched before an error are returned with it.
func (pt *Patcher) Apply(ctx context.Context, c client.Client, env Env, opts PatchOptions) ([]*Change, error) {
	if opts.Rand == nil {
		return nil, errors.New("PatchOptions.Rand is required")
	}
	indexes, err := pt.Choose(opts.Rand, opts.Count)
	if err != nil {
		return nil, err
	}
	var snap *Snapshot
	if opts.AWS != nil && pt.g.AWS != nil && pt.g.AWS.Name != "" {
		if snap, err = TakeSnapshot(opts.AWS, pt.g.AWS.Kind); err != nil {
			return nil, err
		}
	}
	changes := make([]*Change, len(indexes))
	var mu sync.Mutex
	var errs []error
	eg := errgroup.Group{}
	eg.SetLimit(CreateOptions{Concurrency: opts.Concurrency}.concurrency())
	for i, index := range indexes {
		seq := opts.FirstSeq + i
		eg.Go(func() error {
			desired, err := pt.patchOne(ctx, c, env, index, seq)
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return nil
			}
			changes[i] = pt.newChange(index, seq, desired, snap)
			return nil
		})
	}
	_ = eg.Wait() // errors are collected, so that every patch that went through is returned
	changes = slices.DeleteFunc(changes, func(c *Change) bool { return c == nil })
	return changes, errors.Join(errs...)
}

func (pt *Patcher) patchOne(ctx context.Context, c client.Client, env Env, index, seq int) (*unstructured.Unstructured, error) {
	key, err := pt.f.Key(env, pt.g.Name, index)
	if err != nil {
		return nil, err
	}
	merge, err := pt.render(env, index, seq)
	if err != nil {
		return nil, fmt.Errorf("group %s object %d: %w", pt.g.Name, index, err)
	}
	data, err := json.Marshal(merge)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(pt.g.kind.GVK)
	u.SetNamespace(key.Namespace)
	u.SetName(key.Name)
	if err := c.Patch(ctx, u, client.RawPatch(k8stypes.MergePatchType, data)); err != nil {
		return nil, fmt.Errorf("patching %s %s (group %s object %d): %w", pt.g.kind.GVK.Kind, key, pt.g.Name, index, err)
	}
	return u, nil
}

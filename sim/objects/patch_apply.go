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

// ChurnOptions say which objects a churn step (Patcher, Creator, Deleter) changes and how.
type ChurnOptions struct {
	// Count is how many distinct objects to change: 1 to the group's size for a patch or delete.
	Count int
	// Rand chooses the objects of a patch or delete (Choose); the caller seeds it, so that a run can be
	// replayed. Required for those.
	Rand *rand.Rand
	// FirstSeq is the first change's sequence number ({{.Seq}}); the i-th chosen object gets FirstSeq+i.
	FirstSeq int
	// Concurrency bounds the API calls in flight. Default DefaultConcurrency.
	Concurrency int
	// AWS, when set, finds the identity of a resource the group names by AWS name at the change. Default
	// nil: the ResourceID is known at the change only when the group's aws gives it by ARN or ID (see
	// ObjectChange.ResolveResourceID).
	AWS AWSState
}

// PatchOptions are a patch's ChurnOptions.
type PatchOptions = ChurnOptions

// Choose picks count distinct objects of the patch's group with rng, in ascending index order.
func (pt *Patcher) Choose(rng *rand.Rand, count int) ([]int, error) { return pt.g.choose(rng, count) }

// choose picks count distinct indexes among the group's members (made and not deleted) with rng (Floyd's
// sampling: count draws, whatever the group's size), in ascending order.
func (g *group) choose(rng *rand.Rand, count int) ([]int, error) {
	live := g.members.live()
	n := len(live)
	if count < 1 || count > n {
		return nil, fmt.Errorf("cannot choose %d of group %s's %d objects", count, g.Name, n)
	}
	chosen := make(map[int]bool, count)
	out := make([]int, 0, count)
	for j := n - count; j < n; j++ {
		t := rng.IntN(j + 1)
		if chosen[t] {
			t = j
		}
		chosen[t] = true
		out = append(out, live[t])
	}
	slices.Sort(out)
	return out, nil
}

// awsSnapshot is AWS's state for finding an object's resource by name at a change; nil when not needed.
func (g *group) awsSnapshot(aws AWSState) (*Snapshot, error) {
	if aws == nil || g.AWS == nil || g.AWS.Name == "" {
		return nil, nil
	}
	return TakeSnapshot(aws, g.AWS.Kind)
}

// Apply patches opts.Count chosen objects with the merge patch (rendered per object) and returns the changes
// made, in index order. Objects patched before an error are returned with it.
func (pt *Patcher) Apply(ctx context.Context, c client.Client, env Env, opts PatchOptions) ([]*ObjectChange, error) {
	if opts.Rand == nil {
		return nil, errors.New("PatchOptions.Rand is required")
	}
	indexes, err := pt.Choose(opts.Rand, opts.Count)
	if err != nil {
		return nil, err
	}
	snap, err := pt.g.awsSnapshot(opts.AWS)
	if err != nil {
		return nil, err
	}
	changes := make([]*ObjectChange, len(indexes))
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
	changes = slices.DeleteFunc(changes, func(c *ObjectChange) bool { return c == nil })
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

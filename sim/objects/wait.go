package objects

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// List lists the objects of groups (all when none are given) in the run's namespaces by the harness's labels.
func (f *Fleet) List(ctx context.Context, c client.Reader, env Env, groups ...string) ([]*unstructured.Unstructured, error) {
	if len(groups) == 0 {
		groups = f.Groups()
	}
	var out []*unstructured.Unstructured
	for _, name := range groups {
		g := f.byName[name]
		if g == nil {
			return nil, fmt.Errorf("unknown group %q%s", name, f.known())
		}
		namespaces := []string{""}
		if g.kind.Namespaced {
			namespaces = slices.Compact(slices.Sorted(slices.Values(env.Namespaces)))
		}
		for _, ns := range namespaces {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(g.kind.GVK.GroupVersion().WithKind(g.kind.GVK.Kind + "List"))
			if err := c.List(ctx, list, client.InNamespace(ns), client.MatchingLabels{GroupLabel: name}); err != nil {
				return nil, fmt.Errorf("listing group %s: %w", name, err)
			}
			for i := range list.Items {
				out = append(out, &list.Items[i])
			}
		}
	}
	return out, nil
}

// ReadyWaiter returns a CreateOptions.WaitReady that lists the groups' objects and snapshots aws every
// interval until all of them are ready; when ctx ends first, its error says which objects were not.
func (f *Fleet) ReadyWaiter(c client.Reader, env Env, aws AWSState, interval time.Duration) func(context.Context, []string) error {
	return func(ctx context.Context, groups []string) error {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			st, err := f.status(ctx, c, env, aws, groups)
			if err != nil {
				return err
			}
			waiting := notReady(st, groups)
			if waiting == "" {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("waiting for groups %s to be ready: %s: %w", strings.Join(groups, ", "), waiting, ctx.Err())
			case <-t.C:
			}
		}
	}
}

func (f *Fleet) status(ctx context.Context, c client.Reader, env Env, aws AWSState, groups []string) (Status, error) {
	objs, err := f.List(ctx, c, env, groups...)
	if err != nil {
		return Status{}, err
	}
	var snap *Snapshot
	if aws != nil {
		if snap, err = TakeSnapshot(aws, f.AWSKinds()...); err != nil {
			return Status{}, err
		}
	}
	return f.Check(objs, snap), nil
}

// notReady says which of groups are not all ready ("" when all are).
func notReady(st Status, groups []string) string {
	var out []string
	for _, g := range st.Groups {
		if !slices.Contains(groups, g.Name) || g.Ready == g.Count {
			continue
		}
		s := fmt.Sprintf("%s: %d of %d ready, %d exist", g.Name, g.Ready, g.Count, g.Present)
		if len(g.NotReady) > 0 {
			o := g.NotReady[0]
			s += fmt.Sprintf(" (object %d %s: %s)", o.Index, o.Key, o.Reason)
		}
		out = append(out, s)
	}
	return strings.Join(out, "; ")
}

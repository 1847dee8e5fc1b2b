package objects

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// createAll creates every group's objects with CreateGroup, as the harness does; the tests' groups
// come after none, so nothing waits between them.
func createAll(ctx context.Context, f *CompiledGroups, c client.Client, env Env, opts CreateOptions) error {
	for _, g := range f.Groups() {
		if err := f.CreateGroup(ctx, c, env, g, opts); err != nil {
			return err
		}
	}
	return nil
}

// listObjects lists the objects of groups (all when none are given) in env's namespaces by the
// harness's labels, as the harness's watch holds them.
func listObjects(ctx context.Context, f *CompiledGroups, c client.Reader, env Env, groups ...string) ([]*unstructured.Unstructured, error) {
	if len(groups) == 0 {
		groups = f.Groups()
	}
	var out []*unstructured.Unstructured
	for _, name := range groups {
		gvk := f.Kind(name)
		namespaces := []string{""}
		if f.byName[name].kind.Namespaced {
			namespaces = slices.Compact(slices.Sorted(slices.Values(env.Namespaces)))
		}
		for _, ns := range namespaces {
			list := &unstructured.UnstructuredList{}
			list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
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

// waitReady polls until every object of group is ready by the group's condition over the objects and
// aws, and fails the test with the status of the last poll when it does not become so within timeout.
func waitReady(ctx context.Context, t *testing.T, f *CompiledGroups, c client.Reader, env Env, aws AWSState, group string, timeout time.Duration) {
	t.Helper()
	var last GroupStatus
	err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		objs, err := listObjects(ctx, f, c, env, group)
		if err != nil {
			return false, err
		}
		snap, err := TakeSnapshot(aws, f.AWSKinds()...)
		if err != nil {
			return false, err
		}
		for _, g := range f.Check(objs, snap).Groups {
			if g.Name == group {
				last = g
			}
		}
		return last.Ready == last.Count, nil
	})
	if err != nil {
		t.Fatalf("waiting for group %s to be ready: %v; last seen %+v", group, err, last)
	}
}

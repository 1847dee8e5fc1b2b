package objects

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/restartsim/restartsim/sim/fielderr"
	"golang.org/x/sync/errgroup"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Create is a churn step that makes new objects of a group from its template, at indexes after every one
// made so far (scenario timeline kind: create). The new objects join the group: its invariant, ready and
// end-state checks hold them as the others.
type Create struct {
	// Group names the group whose objects are made.
	Group string
	// Applied is a CEL expression (bool) over `object` (the object as observed, its status included) and
	// `aws`: AWS shows the new object. Empty: the group's ready and invariant both hold.
	Applied string
	// Mutations are the AWS operations that apply the change (e.g. CreateTargetGroup).
	Mutations []string
}

// Delete is a churn step that deletes chosen objects of a group (scenario timeline kind: delete). It is
// applied once the object is gone (its finalizers done) and AWS no longer holds the resource the group's aws
// names; a deleted object leaves the group, and AWS still holding its resource is a violation.
type Delete struct {
	// Group names the group whose objects are deleted.
	Group string
	// Mutations are the AWS operations that apply the change (e.g. DeleteTargetGroup).
	Mutations []string
}

// Creator is a compiled Create.
type Creator struct {
	Create
	f       *CompiledGroups
	g       *group
	applied *expr
}

// Deleter is a compiled Delete.
type Deleter struct {
	Delete
	f *CompiledGroups
	g *group
}

// CompileCreate checks and compiles a create step; path is its field path (e.g. timeline[3]). made gives,
// per group, how many objects will have been made before the step (the counts plus earlier creates; nil, or
// a group it leaves out: as made so far): the first new object's template is rendered with them, so that a
// ref beyond what exists fails before the run.
func (f *CompiledGroups) CompileCreate(c Create, path string, made map[string]int) (*Creator, error) {
	var errs fielderr.List
	cr := &Creator{Create: c, f: f, g: f.byName[c.Group]}
	checkMutations(c.Mutations, path, &errs)
	if cr.g == nil {
		errs.Addf(fieldPath(path, "group"), "unknown group %q%s", c.Group, f.known())
		return nil, errs
	}
	if c.Applied != "" {
		cr.applied = compileInto(cr.g.env, c.Applied, fieldPath(path, "applied"), cel.BoolType, &errs)
	}
	if len(errs) == 0 {
		first, ok := made[c.Group]
		if !ok {
			first = cr.g.members.made()
		}
		bounds := map[string]int{c.Group: first + 1}
		for name, n := range made {
			if name != c.Group {
				bounds[name] = n
			}
		}
		u, err := f.render(renderer{f: f, env: validationEnv, made: bounds}, c.Group, first)
		if err != nil {
			errs.Addf(fieldPath(path, "group"), "the group's template fails for the first object this step makes (%d): %v", first, err)
		} else {
			var bad fielderr.List
			if cr.g.kind.checkSchema(u.Object, fieldPath(cr.g.path, "template"), &bad); len(bad) > 0 {
				errs.Addf(fieldPath(path, "group"), "the group's template fails for the first object this step makes (%d): %v", first, bad)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return cr, nil
}

// CompileDelete checks and compiles a delete step; path is its field path (e.g. timeline[4]).
func (f *CompiledGroups) CompileDelete(d Delete, path string) (*Deleter, error) {
	var errs fielderr.List
	dl := &Deleter{Delete: d, f: f, g: f.byName[d.Group]}
	if dl.g == nil {
		errs.Addf(fieldPath(path, "group"), "unknown group %q%s", d.Group, f.known())
	}
	checkMutations(d.Mutations, path, &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	return dl, nil
}

// checkMutations refuses a step's mutations that no call fakeaws records will ever carry.
func checkMutations(ms []string, path string, errs *fielderr.List) {
	for i, m := range ms {
		if msg := checkMutation(m); msg != "" {
			errs.Addf(indexPath(fieldPath(path, "mutations"), i), "%s", msg)
		}
	}
}

// Apply makes opts.Count new objects of the group and returns one change each, in index order. An object
// that could not be made leaves the group again; the ones made before an error are returned with it.
func (cr *Creator) Apply(ctx context.Context, c client.Client, env Env, opts ChurnOptions) ([]*ObjectChange, error) {
	first, err := cr.g.members.allocate(cr.g.Name, opts.Count)
	if err != nil {
		return nil, err
	}
	snap, err := cr.g.awsSnapshot(opts.AWS)
	if err != nil {
		return nil, err
	}
	return each(opts, func(i int) (*ObjectChange, error) {
		index := first + i
		u, err := cr.f.Render(env, cr.g.Name, index)
		if err == nil {
			err = createObject(ctx, c, u, cr.g.Name, index)
		}
		if err != nil {
			key, _ := cr.f.Key(env, cr.g.Name, index)
			cr.g.members.deleteIndex(index, &deletedObject{key: key})
			return nil, fmt.Errorf("group %s object %d: %w", cr.g.Name, index, err)
		}
		ch := &ObjectChange{Group: cr.g.Name, Index: index, Key: keyOf(u), Seq: opts.FirstSeq + i, Kind: ChangeCreate, Desired: u,
			Mutations: slices.Clone(cr.Mutations), f: cr.f, g: cr.g, applied: cr.applied}
		ch.ResourceID = cr.f.ResourceID(u, snap)
		return ch, nil
	})
}

// Apply deletes opts.Count objects of the group chosen with opts.Rand (as a patch chooses them) and returns
// one change each, in index order. The objects leave the group when the delete is asked for.
func (dl *Deleter) Apply(ctx context.Context, c client.Client, env Env, opts ChurnOptions) ([]*ObjectChange, error) {
	if opts.Rand == nil {
		return nil, errors.New("ChurnOptions.Rand is required")
	}
	indexes, err := dl.g.choose(opts.Rand, opts.Count)
	if err != nil {
		return nil, err
	}
	snap, err := dl.g.awsSnapshot(opts.AWS)
	if err != nil {
		return nil, err
	}
	return each(opts, func(i int) (*ObjectChange, error) {
		return dl.deleteOne(ctx, c, env, indexes[i], opts.FirstSeq+i, snap)
	})
}

func (dl *Deleter) deleteOne(ctx context.Context, c client.Client, env Env, index, seq int, snap *Snapshot) (*ObjectChange, error) {
	key, err := dl.f.Key(env, dl.g.Name, index)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(dl.g.kind.GVK)
	if err := c.Get(ctx, key, u); err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("reading %s %s (group %s object %d): %w", dl.g.kind.GVK.Kind, key, dl.g.Name, index, err)
	}
	u.SetNamespace(key.Namespace)
	u.SetName(key.Name)
	d := &deletedObject{key: key}
	if dl.g.ref != nil {
		d.awsKey = dl.g.awsKey(u.Object, snap)
	}
	if !dl.g.members.deleteIndex(index, d) {
		return nil, fmt.Errorf("group %s object %d is deleted already", dl.g.Name, index)
	}
	if err := c.Delete(ctx, u, client.PropagationPolicy("Background")); err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("deleting %s %s (group %s object %d): %w", dl.g.kind.GVK.Kind, key, dl.g.Name, index, err)
	}
	ch := &ObjectChange{Group: dl.g.Name, Index: index, Key: key, Seq: seq, Kind: ChangeDelete, Desired: u,
		Mutations: slices.Clone(dl.Mutations), f: dl.f, g: dl.g}
	ch.ResolveResourceID(snap)
	return ch, nil
}

// each runs fn for 0..opts.Count-1 with opts.Concurrency at once and returns the changes made, in order, with
// every error joined.
func each(opts ChurnOptions, fn func(i int) (*ObjectChange, error)) ([]*ObjectChange, error) {
	changes := make([]*ObjectChange, opts.Count)
	var mu sync.Mutex
	var errs []error
	eg := errgroup.Group{}
	eg.SetLimit(CreateOptions{Concurrency: opts.Concurrency}.concurrency())
	for i := range opts.Count {
		eg.Go(func() error {
			ch, err := fn(i)
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				return nil
			}
			changes[i] = ch
			return nil
		})
	}
	_ = eg.Wait() // errors are collected, so that every change that went through is returned
	return slices.DeleteFunc(changes, func(c *ObjectChange) bool { return c == nil }), errors.Join(errs...)
}

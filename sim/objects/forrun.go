package objects

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Churn is a compiled churn step of an object group: a Patcher, a Creator or a Deleter.
type Churn interface {
	// Apply changes opts.Count objects of the step's group and returns the changes made, in index
	// order; objects changed before an error are returned with it.
	Apply(ctx context.Context, c client.Client, env Env, opts ChurnOptions) ([]*ObjectChange, error)
	// On is the same compiled step changing the objects of run (ForRun of the groups it was
	// compiled with).
	On(run *CompiledGroups) Churn
}

// ForRun returns the groups for one run: the same compiled templates, kinds and expressions, with
// members of their own (each group's count made, none deleted), so that one compile serves every
// run of a scenario.
func (f *CompiledGroups) ForRun() *CompiledGroups {
	run := *f
	run.groups = make([]*group, len(f.groups))
	run.byName = make(map[string]*group, len(f.byName))
	for i, g := range f.groups {
		cp := *g
		cp.members = newMembers(g.Count)
		run.groups[i] = &cp
		if f.byName[g.Name] == g {
			run.byName[g.Name] = &cp
		}
	}
	return &run
}

// On implements Churn.
func (pt *Patcher) On(run *CompiledGroups) Churn {
	cp := *pt
	cp.f, cp.g = run, run.byName[pt.g.Name]
	return &cp
}

// On implements Churn.
func (cr *Creator) On(run *CompiledGroups) Churn {
	cp := *cr
	cp.f, cp.g = run, run.byName[cr.g.Name]
	return &cp
}

// On implements Churn.
func (dl *Deleter) On(run *CompiledGroups) Churn {
	cp := *dl
	cp.f, cp.g = run, run.byName[dl.g.Name]
	return &cp
}

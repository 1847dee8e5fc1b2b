package scenario

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/sim/objects"
)

// objectCount is the number of objects of every group.
func (f *Fleet) objectCount() int {
	n := 0
	for _, g := range f.Objects {
		n += max(0, g.Count)
	}
	return n
}

// ObjectGroup returns the group of fleet.objects named name.
func (f *Fleet) ObjectGroup(name string) (*ObjectGroup, bool) {
	i := slices.IndexFunc(f.Objects, func(g ObjectGroup) bool { return g.Name == name })
	if i < 0 {
		return nil, false
	}
	return &f.Objects[i], true
}

// CompiledObjects are a scenario's object groups and patch steps, ready to run.
type CompiledObjects struct {
	Fleet *objects.Fleet
	// Patches are the patch churn steps' compiled patches, by timeline index.
	Patches map[int]*objects.Patcher
}

// CompileObjects compiles the object groups (templates, kinds, CEL conditions) and the patch
// steps against the kinds the cluster serves: the built-in ones and cluster.crds. Nil without
// object groups.
func CompileObjects(s *Scenario) (*CompiledObjects, ErrorList) {
	if len(s.Fleet.Objects) == 0 {
		return nil, nil
	}
	cat, err := objects.LoadCatalog(s.Cluster.CRDs...)
	if err != nil {
		return nil, ErrorList{{Path: "cluster.crds", Msg: err.Error()}}
	}
	groups := make([]objects.Group, len(s.Fleet.Objects))
	for i, g := range s.Fleet.Objects {
		groups[i] = objects.Group{Name: g.Name, Count: g.Count, Template: g.Template, After: g.After, Ready: g.Ready, Invariant: g.Invariant}
		if g.AWS != nil {
			a := g.AWS
			groups[i].AWS = &objects.AWSRef{Kind: a.Kind, ARN: a.ARN, Name: a.Name, ID: a.ID, Zone: a.Zone, Type: a.Type, SetIdentifier: a.SetIdentifier}
		}
	}
	f, err := objects.Compile(cat, groups, "fleet.objects")
	if err != nil {
		return nil, fieldErrors(err, "", "")
	}
	out := &CompiledObjects{Fleet: f, Patches: map[int]*objects.Patcher{}}
	var errs ErrorList
	for i, st := range s.Timeline {
		if st.Action != ActionChurn || st.Kind != ChurnPatch {
			continue
		}
		p := fmt.Sprintf("timeline[%d]", i)
		pt, err := f.CompilePatch(objects.Patch{Group: st.Group, Merge: st.Patch, Applied: st.Applied, Mutations: st.Mutations}, p)
		if err != nil {
			// The library names the patch "merge"; the scenario's field is "patch".
			errs = append(errs, fieldErrors(err, p+".merge", p+".patch")...)
			continue
		}
		out.Patches[i] = pt
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// fieldErrors turns the object compiler's errors into the scenario's, with the path prefix from
// renamed to.
func fieldErrors(err error, from, to string) ErrorList {
	var list objects.ErrorList
	if !errors.As(err, &list) {
		return ErrorList{{Path: "fleet.objects", Msg: err.Error()}}
	}
	out := make(ErrorList, len(list))
	for i, e := range list {
		path := e.Path
		if from != "" && strings.HasPrefix(path, from) {
			path = to + strings.TrimPrefix(path, from)
		}
		out[i] = &FieldError{Path: path, Msg: e.Msg}
	}
	return out
}

// validatePatchChurn checks a churn step of kind patch against its object group; the patch and
// its condition are compiled by CompileObjects.
func (v *validator) validatePatchChurn(s *Scenario, st *Step, p string) {
	if v.given(p + ".services") {
		v.addf(p+".services", "does not apply to churn kind %s (it takes count: how many objects)", ChurnPatch)
	}
	g, ok := s.Fleet.ObjectGroup(st.Group)
	if !ok {
		v.addf(p+".group", "%q is not a group of fleet.objects", st.Group)
		return
	}
	v.count(p+".count", st.Count, 1, g.Count)
}

package scenario

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/sim/objects"
)

// objectCount is the number of objects of every group.
func (f *FleetSpec) objectCount() int {
	n := 0
	for _, g := range f.Objects {
		n += max(0, g.Count)
	}
	return n
}

// ObjectGroup returns the group of fleet.objects named name.
func (f *FleetSpec) ObjectGroup(name string) (*objects.Group, bool) {
	i := slices.IndexFunc(f.Objects, func(g objects.Group) bool { return g.Name == name })
	if i < 0 {
		return nil, false
	}
	return &f.Objects[i], true
}

// CompiledObjects are a scenario's object groups and object churn steps, ready to run.
type CompiledObjects struct {
	Fleet *objects.CompiledGroups
	// Churn are the compiled churn steps of kinds patch, create and delete, by timeline index.
	Churn map[int]objects.Churn

	// from identifies what they were compiled from (objectsSource), so that a scenario changed
	// in code after Parse is compiled again rather than run as it was read.
	from [sha256.Size]byte
}

// objectsSource is a digest of what CompileObjects reads from s; ok is false when it cannot be
// taken, and nothing compiled may then be reused.
func objectsSource(s *Scenario) (digest [sha256.Size]byte, ok bool) {
	b, err := json.Marshal(struct {
		CRDs     []string
		Objects  []objects.Group
		Timeline []Step
	}{s.Cluster.CRDs, s.Fleet.Objects, s.Timeline})
	if err != nil {
		return digest, false
	}
	return sha256.Sum256(b), true
}

// ForRun is the compiled objects with members of one run's own (objects.CompiledGroups.ForRun).
func (c *CompiledObjects) ForRun() *CompiledObjects {
	run := &CompiledObjects{Fleet: c.Fleet.ForRun(), Churn: make(map[int]objects.Churn, len(c.Churn)), from: c.from}
	for i, ch := range c.Churn {
		run.Churn[i] = ch.On(run.Fleet)
	}
	return run
}

// Objects returns the scenario's object groups and object churn steps for one run, compiled when
// Parse checked the scenario (a scenario built or changed in code since is compiled now): every
// run starts from the groups' counts. Nil without object groups.
func (s *Scenario) Objects() (*CompiledObjects, error) {
	if from, ok := objectsSource(s); ok && s.compiled != nil && s.compiled.from == from {
		return s.compiled.ForRun(), nil
	}
	c, errs := CompileObjects(s)
	if len(errs) > 0 {
		return nil, errs
	}
	return c, nil
}

// CompileObjects compiles the object groups (templates, kinds, CEL conditions) and the patch,
// create and delete steps against the kinds the cluster serves: the built-in ones and cluster.crds. Nil without
// object groups.
func CompileObjects(s *Scenario) (*CompiledObjects, ErrorList) {
	if len(s.Fleet.Objects) == 0 {
		return nil, nil
	}
	cat, err := objects.LoadCatalog(s.Cluster.CRDs...)
	if err != nil {
		return nil, ErrorList{{Path: "cluster.crds", Msg: err.Error()}}
	}
	f, err := objects.CompilePartial(cat, s.Fleet.Objects, "fleet.objects")
	var errs ErrorList
	if err != nil {
		errs = fieldErrors(err, "", "")
	}
	out := &CompiledObjects{Fleet: f, Churn: map[int]objects.Churn{}}
	out.from, _ = objectsSource(s)
	made := map[string]int{}
	for _, g := range s.Fleet.Objects {
		made[g.Name] = g.Count
	}
	for i, st := range s.Timeline {
		if st.Action != ActionChurn || !IsObjectChurn(st.Kind) {
			continue
		}
		if _, ok := s.Fleet.ObjectGroup(st.Group); !ok {
			continue // reported at the step's group by Validate
		}
		p := fmt.Sprintf("timeline[%d]", i)
		ch, err := compileChurn(f, st, p, made)
		if err == nil {
			out.Churn[i] = ch
		} else {
			// The library names the patch "merge"; the scenario's field is "patch".
			errs = append(errs, fieldErrors(err, p+".merge", p+".patch")...)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

// compileChurn compiles an object churn step at path p; made counts the objects of each group made
// before it, which a create adds to.
func compileChurn(f *objects.CompiledGroups, st Step, p string, made map[string]int) (objects.Churn, error) {
	switch st.Kind {
	case ChurnPatch:
		return f.CompilePatch(objects.Patch{Group: st.Group, Merge: st.Patch, Applied: st.Applied, Mutations: st.Mutations}, p)
	case ChurnCreate:
		cr, err := f.CompileCreate(objects.Create{Group: st.Group, Applied: st.Applied, Mutations: st.Mutations}, p, maps.Clone(made))
		made[st.Group] += st.Count
		return cr, err
	default:
		return f.CompileDelete(objects.Delete{Group: st.Group, Mutations: st.Mutations}, p)
	}
}

// fieldErrors is the object compiler's error as a list of problems, with the path prefix from
// renamed to.
func fieldErrors(err error, from, to string) ErrorList {
	var list ErrorList
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

// IsObjectChurn reports whether a churn kind changes the objects of a group of fleet.objects.
func IsObjectChurn(kind string) bool {
	return kind == ChurnPatch || kind == ChurnCreate || kind == ChurnDelete
}

// groupSize is an object group's size and how many objects were made, as the steps so far leave them.
type groupSize struct{ live, made int }

// validateObjectChurn checks a churn step of kind patch, create or delete against its object
// group, whose size the earlier steps changed; the patch and the conditions are compiled by
// CompileObjects.
func (v *validator) validateObjectChurn(s *Scenario, st *Step, p string) {
	if v.given(p + ".services") {
		v.addf(p+".services", "does not apply to churn kind %s (it takes count: how many objects)", st.Kind)
	}
	if st.Kind != ChurnPatch && v.given(p+".patch") {
		v.addf(p+".patch", "applies to churn kind %s only", ChurnPatch)
	}
	if st.Kind == ChurnDelete && v.given(p+".applied") {
		v.addf(p+".applied", "does not apply to churn kind %s: it is applied once the object is gone and AWS no longer holds its resource", ChurnDelete)
	}
	g, ok := s.Fleet.ObjectGroup(st.Group)
	if !ok {
		v.addf(p+".group", "%q is not a group of fleet.objects", st.Group)
		return
	}
	if g.Count < 1 || g.Count > objects.MaxCount {
		return // the group's own count is the mistake, reported at its field
	}
	if v.groups == nil {
		v.groups = map[string]*groupSize{}
		for _, g := range s.Fleet.Objects {
			v.groups[g.Name] = &groupSize{live: g.Count, made: g.Count}
		}
	}
	size := v.groups[st.Group]
	switch st.Kind {
	case ChurnCreate:
		if st.Count < 1 || size.made+st.Count > objects.MaxCount {
			v.addf(p+".count", "must be between 1 and %d (group %s has had %d objects, at most %d), got %d",
				max(1, objects.MaxCount-size.made), st.Group, size.made, objects.MaxCount, st.Count)
			return
		}
		size.made += st.Count
		size.live += st.Count
	case ChurnDelete:
		if st.Count < 1 || st.Count > size.live {
			v.addf(p+".count", "must be between 1 and %d (the size of group %s after the earlier steps), got %d", size.live, st.Group, st.Count)
			return
		}
		size.live -= st.Count
	default:
		if st.Count < 1 || st.Count > size.live {
			v.addf(p+".count", "must be between 1 and %d (the size of group %s after the earlier steps), got %d", size.live, st.Group, st.Count)
		}
	}
}

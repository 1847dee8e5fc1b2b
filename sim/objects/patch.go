package objects

import (
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/restartsim/restartsim/sim/fielderr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Patcher is a compiled Patch: its merge patch parsed, its Applied condition typed by the group's kind.
type Patcher struct {
	Patch
	f       *CompiledGroups
	g       *group
	merge   *valueTemplate
	applied *expr
}

// CompilePatch checks and compiles a patch of one of the fleet's groups; path is the patch's field path (e.g.
// timeline[3]) and problems are a fielderr.List under it (timeline[3].merge.spec.port).
func (f *CompiledGroups) CompilePatch(p Patch, path string) (*Patcher, error) {
	var errs fielderr.List
	pt := &Patcher{Patch: p, f: f, g: f.byName[p.Group]}
	checkMutations(p.Mutations, path, &errs)
	if pt.g == nil {
		errs.Addf(fieldPath(path, "group"), "unknown group %q%s", p.Group, f.known())
		return nil, errs
	}
	mp := fieldPath(path, "merge")
	if len(p.Merge) == 0 {
		errs.Addf(mp, "required: a JSON merge patch, e.g. {spec: {healthCheckPath: /v{{.Seq}}}}")
	} else if pt.merge = parseValueTemplate(p.Merge, mp, parseFuncs(), &errs); pt.merge != nil {
		f.checkMerge(pt.merge, mp, &errs)
	}
	if p.Applied == "" {
		errs.Addf(fieldPath(path, "applied"), "required: a CEL condition over object and aws that holds once AWS shows the change")
	} else if pt.g.env != nil {
		pt.applied = compileInto(pt.g.env, p.Applied, fieldPath(path, "applied"), cel.BoolType, &errs)
	}
	if len(errs) == 0 && pt.g.clean && f.refsClean(pt.g) {
		pt.checkRender(mp, &errs)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return pt, nil
}

// checkRender renders the patch of object 0 with a stand-in run and checks the patched object against the
// kind's schema, so that a field the schema does not know or a value of the wrong type is refused before the
// run.
func (pt *Patcher) checkRender(mp string, errs *fielderr.List) {
	merge, err := pt.render(validationEnv, 0, 1)
	if err != nil {
		errs.Addf(mp, "object 0: %v", err)
		return
	}
	obj, err := pt.f.Render(validationEnv, pt.g.Name, 0)
	if err != nil {
		errs.Addf(mp, "object 0: %v", err)
		return
	}
	pt.g.kind.checkSchema(mergePatch(obj.Object, merge).(map[string]any), mp, errs)
}

// checkMerge refuses a merge patch that is not an object or that renames or moves objects.
func (f *CompiledGroups) checkMerge(t *valueTemplate, mp string, errs *fielderr.List) {
	obj, ok := t.tree.(map[string]any)
	if !ok {
		errs.Addf(mp, "must be an object (a JSON merge patch)")
		return
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := obj[k]; ok {
			errs.Addf(fieldPath(mp, k), "a patch cannot change an object's kind")
		}
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		for _, k := range []string{"name", "namespace", "generateName"} {
			if _, ok := meta[k]; ok {
				errs.Addf(fieldPath(fieldPath(mp, "metadata"), k), "a patch cannot rename or move an object")
			}
		}
	}
	f.checkRefs(t, errs)
}

// render renders the merge patch for object index with change sequence number seq.
func (pt *Patcher) render(env Env, index, seq int) (map[string]any, error) {
	d, err := pt.g.data(env, index)
	if err != nil {
		return nil, err
	}
	d.Seq = seq
	v, err := pt.merge.render(bindFuncs(renderer{f: pt.f, env: env}, d), d)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

func (pt *Patcher) newChange(index, seq int, desired *unstructured.Unstructured, snap *Snapshot) *ObjectChange {
	c := &ObjectChange{Group: pt.g.Name, Index: index, Key: keyOf(desired), Seq: seq, Kind: ChangePatch, Desired: desired,
		Mutations: slices.Clone(pt.Mutations), f: pt.f, g: pt.g, applied: pt.applied}
	c.ResourceID = pt.f.ResourceID(desired, snap)
	return c
}

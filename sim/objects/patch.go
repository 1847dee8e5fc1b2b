package objects

import (
	"fmt"
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// Patcher is a compiled Patch: its merge patch parsed, its Applied condition typed by the group's kind.
type Patcher struct {
	Patch
	f       *Fleet
	g       *group
	merge   *valueTemplate
	applied *expr
}

// CompilePatch checks and compiles a patch of one of the fleet's groups; path is the patch's field path (e.g.
// timeline[3]) and problems are an ErrorList under it (timeline[3].merge.spec.port).
func (f *Fleet) CompilePatch(p Patch, path string) (*Patcher, error) {
	var errs ErrorList
	pt := &Patcher{Patch: p, f: f, g: f.byName[p.Group]}
	for i, m := range p.Mutations {
		if msg := checkMutation(m); msg != "" {
			errs.addf(indexPath(fieldPath(path, "mutations"), i), "%s", msg)
		}
	}
	if pt.g == nil {
		errs.addf(fieldPath(path, "group"), "unknown group %q%s", p.Group, f.known())
		return nil, errs
	}
	mp := fieldPath(path, "merge")
	if len(p.Merge) == 0 {
		errs.addf(mp, "required: a JSON merge patch, e.g. {spec: {healthCheckPath: /v{{.Seq}}}}")
	} else if pt.merge = parseValueTemplate(p.Merge, mp, parseFuncs(), &errs); pt.merge != nil {
		f.checkMerge(pt.merge, mp, &errs)
	}
	if p.Applied == "" {
		errs.addf(fieldPath(path, "applied"), "required: a CEL condition over object and aws that holds once AWS shows the change")
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
func (pt *Patcher) checkRender(mp string, errs *ErrorList) {
	merge, err := pt.render(validationEnv, 0, 1)
	if err != nil {
		errs.addf(mp, "object 0: %v", err)
		return
	}
	obj, err := pt.f.Render(validationEnv, pt.g.Name, 0)
	if err != nil {
		errs.addf(mp, "object 0: %v", err)
		return
	}
	pt.g.kind.checkSchema(mergePatch(obj.Object, merge).(map[string]any), mp, errs)
}

// checkMerge refuses a merge patch that is not an object or that renames or moves objects.
func (f *Fleet) checkMerge(t *valueTemplate, mp string, errs *ErrorList) {
	obj, ok := t.tree.(map[string]any)
	if !ok {
		errs.addf(mp, "must be an object (a JSON merge patch)")
		return
	}
	for _, k := range []string{"apiVersion", "kind"} {
		if _, ok := obj[k]; ok {
			errs.addf(fieldPath(mp, k), "a patch cannot change an object's kind")
		}
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		for _, k := range []string{"name", "namespace", "generateName"} {
			if _, ok := meta[k]; ok {
				errs.addf(fieldPath(fieldPath(mp, "metadata"), k), "a patch cannot rename or move an object")
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
	v, err := pt.merge.render(bindFuncs(renderer{pt.f, env}, d), d)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// Change is one object's patch, made by Patcher.Apply: what changed and how to tell that AWS shows it.
type Change struct {
	Group string
	Index int
	Key   k8stypes.NamespacedName
	// Seq is the change's sequence number ({{.Seq}} in the patch).
	Seq int
	// Desired is the object as the harness patched it (the API server's answer to the patch): the `object` of
	// the Applied condition.
	Desired *unstructured.Unstructured
	// Mutations are the AWS operations that apply the change.
	Mutations []string
	// ARN is the object's AWS resource when known at the patch ("" when not: see ResolveARN).
	ARN string

	pt     *Patcher
	object ref.Val
}

// Applied reports whether snap shows the change: the Applied condition over the desired object and its AWS
// resource. An evaluation error (e.g. a field AWS does not have yet) counts as not applied.
func (c *Change) Applied(snap *Snapshot) (bool, error) {
	act := &activation{object: c.object, aws: c.pt.g.awsValue(c.object, snap)}
	ok, err := c.pt.applied.evalBool(act)
	if err != nil {
		return false, fmt.Errorf("%s: applied %s: %w", c.Key, c.pt.applied.text, err)
	}
	return ok, nil
}

// Explain gives the values the Applied condition reads, for a change that never showed.
func (c *Change) Explain(snap *Snapshot) string {
	act := &activation{object: c.object, aws: c.pt.g.awsValue(c.object, snap)}
	return c.pt.applied.explain(act)
}

// ResolveARN fills ARN from snap when it was not known at the patch (a resource found by name, created
// later); it returns the ARN.
func (c *Change) ResolveARN(snap *Snapshot) string {
	if c.ARN == "" {
		c.ARN = c.pt.f.ARN(c.Desired, snap)
	}
	return c.ARN
}

// IsMutation reports whether a recorded AWS call is one of the change's Mutations, successful and naming its
// resource: the change's first meaningful mutation is the first such call after the patch. (Calls record
// target group, load balancer and listener ARNs; a rule is matched through its listener's ARN only if the
// scenario's ARN expression gives that.)
func (c *Change) IsMutation(call fakeaws.Call) bool {
	if c.ARN == "" || call.Outcome != fakeaws.OutcomeOK || !slices.Contains(c.Mutations, call.Operation) {
		return false
	}
	return call.TargetGroupARN == c.ARN || call.LoadBalancerARN == c.ARN || call.ListenerARN == c.ARN
}

func (pt *Patcher) newChange(index, seq int, desired *unstructured.Unstructured, snap *Snapshot) *Change {
	c := &Change{Group: pt.g.Name, Index: index, Key: keyOf(desired), Seq: seq, Desired: desired,
		Mutations: slices.Clone(pt.Mutations), pt: pt, object: pt.g.env.objectVal(desired.Object)}
	c.ARN = pt.f.ARN(desired, snap)
	return c
}

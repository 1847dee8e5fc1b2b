package objects

import (
	"slices"
	"strings"
	"text/template/parse"

	"github.com/google/cel-go/cel"
	"github.com/restartsim/restartsim/sim/fielderr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// CompiledGroups is a scenario's groups, checked and compiled: templates parsed, kinds known, expressions typed.
type CompiledGroups struct {
	groups []*group
	byName map[string]*group
	order  [][]string
	envs   map[envKey]*celEnv
	kinds  map[schema.GroupVersionKind]*kindType
	refs   *refSet
}

// group is one compiled Group.
type group struct {
	Group
	path     string // e.g. fleet.objects[1]
	kind     *Kind
	tmpl     *valueTemplate
	nameTmpl *valueTemplate // metadata.name alone, which ref renders
	env      *celEnv        // object and aws typed
	ready    *expr
	inv      *expr
	ref      *awsRef // the AWSRef's expressions over object
	clean    bool    // compiled without a problem
	members  *members
}

type envKey struct {
	gvk schema.GroupVersionKind
	aws string
}

// Compile checks and compiles groups against the catalog's kinds (nil: the built-in kinds only). path is the
// groups' field path (e.g. fleet.objects); the error is a fielderr.List of every problem, whose paths extend it,
// e.g. fleet.objects[1].template.spec.name.
func Compile(cat *Catalog, groups []Group, path string) (*CompiledGroups, error) {
	f, err := CompilePartial(cat, groups, path)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// CompilePartial is Compile returning the fleet also when groups have problems, so that patches of
// it can be checked in the same pass (CompilePatch skips what a broken group cannot tell). A fleet
// with an error must not be run.
func CompilePartial(cat *Catalog, groups []Group, path string) (*CompiledGroups, error) {
	if cat == nil {
		cat = NewCatalog()
	}
	f := &CompiledGroups{byName: map[string]*group{}, envs: map[envKey]*celEnv{}, kinds: map[schema.GroupVersionKind]*kindType{}}
	var errs fielderr.List
	for i, g := range groups {
		p := indexPath(path, i)
		switch {
		case len(validation.IsDNS1123Label(g.Name)) > 0:
			errs.Addf(fieldPath(p, "name"), "%q is not a DNS label (lower-case letters, digits and '-', at most 63)", g.Name)
		case f.byName[g.Name] != nil:
			errs.Addf(fieldPath(p, "name"), "group %q is defined twice", g.Name)
		}
		if g.Count < 1 || g.Count > MaxCount {
			errs.Addf(fieldPath(p, "count"), "must be between 1 and %d, got %d", MaxCount, g.Count)
		}
		cg := &group{Group: g, path: p, members: newMembers(g.Count)}
		f.groups = append(f.groups, cg)
		if f.byName[g.Name] == nil {
			f.byName[g.Name] = cg
		}
	}
	names := true // every name template parsed, so that ref can render
	for _, g := range f.groups {
		n := len(errs)
		f.compileGroup(cat, g, &errs)
		g.clean = len(errs) == n && f.byName[g.Name] == g && g.Count >= 1 && g.Count <= MaxCount
		names = names && g.nameTmpl != nil
	}
	f.orderGroups(&errs)
	if refs, err := newRefSet(f.groups, f.kindType); err != nil {
		errs.Addf(path, "%v", err)
	} else {
		f.refs = refs
		for _, g := range f.groups {
			if g.kind != nil {
				f.compileExprs(g, &errs)
			}
		}
	}
	for _, g := range f.groups {
		// A render of a group that refs a broken one would only repeat that group's problem.
		if g.clean && names && f.refsClean(g) {
			f.checkRender(g, &errs)
		}
	}
	if len(errs) > 0 {
		return f, errs
	}
	return f, nil
}

// refsClean reports whether every group g's template refs compiled cleanly (all of them when a ref
// names its group with anything but a literal).
func (f *CompiledGroups) refsClean(g *group) bool {
	ok := true
	g.tmpl.templates(func(_ string, tree *parse.Tree) {
		walkParse(tree.Root, func(fn string, args []string) {
			if fn != "ref" && fn != "refNamespace" {
				return
			}
			if len(args) == 0 || args[0] == "" {
				ok = ok && !slices.ContainsFunc(f.groups, func(o *group) bool { return !o.clean })
				return
			}
			o := f.byName[args[0]]
			ok = ok && o != nil && o.clean
		})
	})
	return ok
}

func (f *CompiledGroups) compileGroup(cat *Catalog, g *group, errs *fielderr.List) {
	tp := fieldPath(g.path, "template")
	if len(g.Template) == 0 {
		errs.Addf(tp, "required: the object to make, with apiVersion, kind and metadata.name")
		return
	}
	g.tmpl = parseValueTemplate(g.Template, tp, parseFuncs(), errs)
	if g.tmpl == nil {
		return
	}
	obj, ok := g.tmpl.tree.(map[string]any)
	if !ok {
		errs.Addf(tp, "must be an object (apiVersion, kind, metadata, spec...)")
		return
	}
	g.kind = f.lookupKind(cat, obj, tp, errs)
	f.checkMetadata(g, obj, tp, errs)
	f.checkRefs(g.tmpl, errs)
	for i, a := range g.After {
		switch {
		case f.byName[a] == nil:
			errs.Addf(indexPath(fieldPath(g.path, "after"), i), "unknown group %q%s", a, f.known())
		case a == g.Name:
			errs.Addf(indexPath(fieldPath(g.path, "after"), i), "a group cannot come after itself")
		}
	}
}

// lookupKind finds the template's kind; apiVersion and kind must be plain strings, since they type `object`.
func (f *CompiledGroups) lookupKind(cat *Catalog, obj map[string]any, tp string, errs *fielderr.List) *Kind {
	apiVersion, ok1 := obj["apiVersion"].(string)
	kind, ok2 := obj["kind"].(string)
	switch {
	case !ok1 || apiVersion == "":
		errs.Addf(fieldPath(tp, "apiVersion"), "required: a plain string (no template), e.g. v1 or elbv2.services.k8s.aws/v1alpha1")
	case !ok2 || kind == "":
		errs.Addf(fieldPath(tp, "kind"), "required: a plain string (no template), e.g. TargetGroup")
	default:
		k, err := cat.Lookup(apiVersion, kind)
		if err != nil {
			errs.Addf(fieldPath(tp, "kind"), "%v", err)
		}
		return k
	}
	return nil
}

func (f *CompiledGroups) checkMetadata(g *group, obj map[string]any, tp string, errs *fielderr.List) {
	mp := fieldPath(tp, "metadata")
	meta, ok := obj["metadata"].(map[string]any)
	if !ok {
		errs.Addf(mp, "required: an object with at least name")
		return
	}
	if _, ok := meta["namespace"]; ok {
		errs.Addf(fieldPath(mp, "namespace"), "set by the harness: object i goes to the run's namespace i mod n (write {{.Namespace}} where a field needs it)")
	}
	if _, ok := meta["generateName"]; ok {
		errs.Addf(fieldPath(mp, "generateName"), "not supported: names must be known before the objects exist (template metadata.name with {{.Index}})")
	}
	np := fieldPath(mp, "name")
	switch name := meta["name"].(type) {
	case string:
		if g.Count > 1 {
			errs.Addf(np, "every object of the group would be named %q: template it, e.g. %q", name, name+"-{{.Index}}")
		}
		g.nameTmpl = &valueTemplate{root: g.tmpl.root, tree: name}
	case *stringTemplate:
		g.nameTmpl = &valueTemplate{root: g.tmpl.root, tree: name}
		walkParse(g.tmpl.root.Lookup(name.name).Tree.Root, func(fn string, _ []string) {
			if fn == "ref" || fn == "refNamespace" {
				errs.Addf(np, "%s cannot be used in metadata.name (names are what ref resolves)", fn)
			}
		})
	default:
		errs.Addf(np, "required: a string, templated so that every object's name differs, e.g. tg-{{.Index}}")
	}
}

// checkRefs checks the groups that ref and refNamespace name with a literal.
func (f *CompiledGroups) checkRefs(t *valueTemplate, errs *fielderr.List) {
	t.templates(func(path string, tree *parse.Tree) {
		walkParse(tree.Root, func(fn string, args []string) {
			if (fn == "ref" || fn == "refNamespace") && len(args) > 0 && args[0] != "" && f.byName[args[0]] == nil {
				errs.Addf(path, "%s: unknown group %q%s", fn, args[0], f.known())
			}
		})
	})
}

func (f *CompiledGroups) known() string {
	names := make([]string, len(f.groups))
	for i, g := range f.groups {
		names[i] = g.Name
	}
	return " (groups: " + strings.Join(names, ", ") + ")"
}

func (f *CompiledGroups) compileExprs(g *group, errs *fielderr.List) {
	awsKind := ""
	if ref := g.AWS; ref != nil {
		ap := fieldPath(g.path, "aws")
		if _, known := awsKinds.lookup(ref.Kind); known {
			awsKind = ref.Kind // conditions are checked against the kind even when its reference is wrong
		}
		if way, ok := checkRef(ref, ap, errs); ok {
			env := f.env(g.kind, "", g.path, errs)
			if env == nil {
				return
			}
			g.ref = compileRef(env, ref, way, ap, errs)
		}
	}
	g.env = f.env(g.kind, awsKind, g.path, errs)
	if g.env == nil {
		return
	}
	if g.Ready != "" {
		g.ready = compileInto(g.env, g.Ready, fieldPath(g.path, "ready"), cel.BoolType, errs)
	}
	if g.Invariant != "" {
		g.inv = compileInto(g.env, g.Invariant, fieldPath(g.path, "invariant"), cel.BoolType, errs)
	}
}

func compileInto(env *celEnv, text, path string, want *cel.Type, errs *fielderr.List) *expr {
	x, ferr := env.compile(text, path, want)
	if ferr != nil {
		*errs = append(*errs, ferr)
	}
	return x
}

// env returns the (shared) CEL environment of a kind and AWS kind.
func (f *CompiledGroups) env(k *Kind, awsKind, path string, errs *fielderr.List) *celEnv {
	key := envKey{k.GVK, awsKind}
	if e, ok := f.envs[key]; ok {
		return e
	}
	kt, err := f.kindType(k)
	var e *celEnv
	if err == nil {
		e, err = newCELEnv(kt, awsKind, f.refs)
	}
	if err != nil {
		errs.Addf(path, "CEL environment of %s: %v", k.GVK.Kind, err)
	}
	f.envs[key] = e
	return e
}

// kindType is the (shared) CEL type of a kind's objects.
func (f *CompiledGroups) kindType(k *Kind) (*kindType, error) {
	if t, ok := f.kinds[k.GVK]; ok {
		return t, nil
	}
	t, err := newKindType(k)
	if err != nil {
		return nil, err
	}
	f.kinds[k.GVK] = t
	return t, nil
}

// orderGroups sorts the groups into creation waves by After; a cycle is an error.
func (f *CompiledGroups) orderGroups(errs *fielderr.List) {
	done := map[string]bool{}
	for len(done) < len(f.byName) {
		var wave []string
		for _, g := range f.groups {
			if done[g.Name] || f.byName[g.Name] != g {
				continue
			}
			if !slices.ContainsFunc(g.After, func(a string) bool { return !done[a] && f.byName[a] != nil && a != g.Name }) {
				wave = append(wave, g.Name)
			}
		}
		if len(wave) == 0 {
			var left []string
			first := ""
			for _, g := range f.groups {
				if !done[g.Name] && f.byName[g.Name] == g {
					left = append(left, g.Name)
					if first == "" {
						first = fieldPath(g.path, "after")
					}
				}
			}
			errs.Addf(first, "groups %s wait for each other in a cycle", strings.Join(left, ", "))
			return
		}
		for _, n := range wave {
			done[n] = true
		}
		f.order = append(f.order, wave)
	}
}

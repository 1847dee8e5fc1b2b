package objects

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// ObjectIndex is one observation of the fleet's objects, which the reference functions of conditions
// search. Build it with CompiledGroups.IndexObjects; it is read-only afterwards and safe for concurrent use.
type ObjectIndex struct {
	byName map[objectKey]*unstructured.Unstructured
	byUID  map[k8stypes.UID]objectKey
	byNS   map[nsKey][]*unstructured.Unstructured // sorted by name, for selectors
}

type nsKey struct {
	gvk schema.GroupVersionKind
	ns  string
}

type objectKey struct {
	nsKey
	name string
}

// IndexObjects indexes the fleet's objects as Check takes them (objects of no group are left out).
func (f *CompiledGroups) IndexObjects(objs []*unstructured.Unstructured) *ObjectIndex {
	x := &ObjectIndex{byName: map[objectKey]*unstructured.Unstructured{}, byUID: map[k8stypes.UID]objectKey{},
		byNS: map[nsKey][]*unstructured.Unstructured{}}
	for _, o := range objs {
		g := f.byName[o.GetLabels()[GroupLabel]]
		if g == nil || g.kind == nil {
			continue
		}
		k := nsKey{g.kind.GVK, o.GetNamespace()}
		key := objectKey{k, o.GetName()}
		x.byName[key] = o
		if uid := o.GetUID(); uid != "" {
			x.byUID[uid] = key
		}
		x.byNS[k] = append(x.byNS[k], o)
	}
	for _, l := range x.byNS {
		slices.SortFunc(l, func(a, b *unstructured.Unstructured) int { return strings.Compare(a.GetName(), b.GetName()) })
	}
	return x
}

// get is the object of kind gvk named key, nil when the observation has none.
func (x *ObjectIndex) get(gvk schema.GroupVersionKind, key k8stypes.NamespacedName) *unstructured.Unstructured {
	if x == nil {
		return nil
	}
	return x.byName[objectKey{nsKey{gvk, key.Namespace}, key.Name}]
}

// view is what the reference functions of one evaluation see: the observation and the namespace of
// `object`.
type view struct {
	idx       *ObjectIndex
	namespace string
}

// viewVal is a view as a CEL value (viewVar).
type viewVal struct{ *view }

func (v viewVal) ConvertToNative(reflect.Type) (any, error) {
	return nil, fmt.Errorf("the observation has no native form")
}
func (v viewVal) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("the observation cannot be converted")
}
func (v viewVal) Equal(other ref.Val) ref.Val {
	o, ok := other.(viewVal)
	return types.Bool(ok && o.view == v.view)
}
func (v viewVal) Type() ref.Type { return viewType }
func (v viewVal) Value() any     { return v.view }

// withView runs fn on the view v holds; without an observation of the objects, the reference functions fail
// (and the condition counts as not holding).
func withView(v ref.Val, fn func(*view) ref.Val) ref.Val {
	vv, ok := v.(viewVal)
	if !ok || vv.view == nil || vv.idx == nil {
		return types.NewErr("reference functions need an observation of the fleet's objects, which this evaluation lacks")
	}
	return fn(vv.view)
}

// member reports whether o is an object of one of the target's groups.
func (t *refTarget) member(o *unstructured.Unstructured) bool {
	return o != nil && slices.Contains(t.groups, o.GetLabels()[GroupLabel])
}

func (t *refTarget) namespace(vw *view) string {
	if t.kind.Namespaced {
		return vw.namespace
	}
	return ""
}

func (vw *view) ref(t *refTarget, name ref.Val) ref.Val {
	n, ok := name.(types.String)
	if !ok {
		return types.MaybeNoSuchOverloadErr(name)
	}
	o := vw.idx.get(t.gvk, k8stypes.NamespacedName{Namespace: t.namespace(vw), Name: string(n)})
	if !t.member(o) {
		return types.NullValue
	}
	return t.typ.val(o.Object)
}

func (vw *view) owners(t *refTarget, obj ref.Val) ref.Val {
	var out []ref.Val
	refs, _ := field(field(obj, "metadata"), "ownerReferences").(traits.Lister)
	for i := 0; refs != nil && i < int(refs.Size().(types.Int)); i++ {
		uid, _ := field(refs.Get(types.Int(i)), "uid").(types.String)
		key, ok := vw.idx.byUID[k8stypes.UID(uid)]
		if o := vw.idx.byName[key]; ok && key.gvk == t.gvk && t.member(o) {
			out = append(out, t.typ.val(o.Object))
		}
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

func (vw *view) selected(t *refTarget, sel ref.Val) ref.Val {
	s, err := labelSelector(toNative(sel))
	if err != nil {
		return types.NewErr("selected: %v", err)
	}
	var out []ref.Val
	if s != nil {
		for _, o := range vw.idx.byNS[nsKey{t.gvk, t.namespace(vw)}] {
			if t.member(o) && s.Matches(labels.Set(o.GetLabels())) {
				out = append(out, t.typ.val(o.Object))
			}
		}
	}
	return types.NewRefValList(types.DefaultTypeAdapter, out)
}

// labelSelector reads a selector: a metav1.LabelSelector (a map whose keys are only matchLabels and
// matchExpressions) or a plain map of labels, as a Service's spec.selector. An empty or null selector selects
// nothing (nil), as a Service's does.
func labelSelector(v any) (labels.Selector, error) {
	m, ok := v.(map[string]any)
	if v == nil || ok && len(m) == 0 {
		return nil, nil
	}
	if !ok {
		return nil, fmt.Errorf("a selector is a map of labels or {matchLabels, matchExpressions}, not %T", v)
	}
	structured := true
	for k := range m {
		structured = structured && (k == "matchLabels" || k == "matchExpressions")
	}
	if structured {
		data, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		var ls metav1.LabelSelector
		if err := json.Unmarshal(data, &ls); err != nil {
			return nil, err
		}
		if len(ls.MatchLabels) == 0 && len(ls.MatchExpressions) == 0 {
			return nil, nil
		}
		return metav1.LabelSelectorAsSelector(&ls)
	}
	set := labels.Set{}
	for k, val := range m {
		s, ok := val.(string)
		if !ok {
			return nil, fmt.Errorf("label %q: the value is %T, not a string", k, val)
		}
		set[k] = s
	}
	return labels.ValidatedSelectorFromSet(set)
}

// field is a map value's field, nil when v is not a map or has none.
func field(v ref.Val, name string) ref.Val {
	m, ok := v.(traits.Mapper)
	if !ok {
		return nil
	}
	f, found := m.Find(types.String(name))
	if !found {
		return nil
	}
	return f
}

// toNative is a CEL value as plain Go (maps, lists, strings, numbers, bools, nil).
func toNative(v ref.Val) any {
	switch v := v.(type) {
	case nil, types.Null:
		return nil
	case traits.Mapper:
		out := map[string]any{}
		for it := v.Iterator(); it.HasNext() == types.True; {
			k := it.Next()
			out[fmt.Sprint(k.Value())] = toNative(v.Get(k))
		}
		return out
	case traits.Lister:
		out := []any{}
		for it := v.Iterator(); it.HasNext() == types.True; {
			out = append(out, toNative(it.Next()))
		}
		return out
	}
	return v.Value()
}

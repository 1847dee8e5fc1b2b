package objects

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The reference functions of conditions. Their first argument is a group name or a kind in quotes, known
// when the expression compiles, so that the objects they return are typed by that kind's schema:
//
//	ref('gateways', object.spec.gatewayName)  the group's object of that name in object's namespace, or null
//	owners('deployments', object)             the group's objects that object's ownerReferences name (by uid)
//	selected('pods', object.spec.selector)    the group's objects in object's namespace that a selector selects
//
// A kind (e.g. 'TargetGroup') reaches every group that makes it. The objects come from the same observation as
// `object`: the harness's watch of the fleet's groups.
const (
	fnRef      = "ref"
	fnOwners   = "owners"
	fnSelected = "selected"
	// viewVar is the hidden variable the functions read the observation from; '@' keeps it out of reach of
	// the expressions' own text.
	viewVar = "@view"
)

var refFunctions = []string{fnRef, fnOwners, fnSelected}

// refSecondArg says, per reference function, what its second argument is.
var refSecondArg = map[string]string{fnRef: "a name", fnOwners: "an object", fnSelected: "a label selector"}

// viewType is the CEL type of viewVar.
var viewType = cel.OpaqueType("restartsim.view")

// refTarget is what a reference function's first argument names: one group, or every group of one kind.
type refTarget struct {
	name   string   // as written: a group name or a kind
	groups []string // the groups it reaches
	gvk    schema.GroupVersionKind
	kind   *Kind
	typ    *kindType
	// ambiguous says why a kind cannot be a target (groups of several API groups or versions make it).
	ambiguous string
}

// refSet is a fleet's reference targets, by name.
type refSet struct {
	targets map[string]*refTarget
	known   string // for messages
}

// newRefSet makes the targets of groups whose kinds are known; kindTypes gives each kind's CEL type.
func newRefSet(groups []*group, kindType func(*Kind) (*kindType, error)) (*refSet, error) {
	rs := &refSet{targets: map[string]*refTarget{}}
	var names []string
	for _, g := range groups {
		if g.kind == nil {
			continue
		}
		kt, err := kindType(g.kind)
		if err != nil {
			return nil, err
		}
		rs.targets[g.Name] = &refTarget{name: g.Name, groups: []string{g.Name}, gvk: g.kind.GVK, kind: g.kind, typ: kt}
		names = append(names, g.Name)
		k := g.kind.GVK.Kind
		switch t := rs.targets[k]; {
		case t == nil:
			rs.targets[k] = &refTarget{name: k, groups: []string{g.Name}, gvk: g.kind.GVK, kind: g.kind, typ: kt}
			names = append(names, k)
		case t.gvk != g.kind.GVK:
			t.ambiguous = fmt.Sprintf("groups of %s and %s make kind %s: name a group instead", t.gvk.GroupVersion(), g.kind.GVK.GroupVersion(), k)
		default:
			t.groups = append(t.groups, g.Name)
		}
	}
	sort.Strings(names)
	rs.known = strings.Join(slices.Compact(names), ", ")
	return rs, nil
}

// funcName is the internal function a reference function with this target expands to.
func (t *refTarget) funcName(fn string) string { return "@" + fn + ":" + t.name }

// envOptions are the macros and the functions of every target.
func (rs *refSet) envOptions() []cel.EnvOption {
	var macros []cel.Macro
	for _, fn := range refFunctions {
		// Any argument count reaches the expander, which says what the function takes; a fixed-count macro
		// would leave other counts to the checker's "undeclared reference".
		macros = append(macros, cel.GlobalVarArgMacro(fn, rs.expander(fn)))
	}
	opts := []cel.EnvOption{cel.Macros(macros...), cel.Variable(viewVar, viewType)}
	for _, name := range slices.Sorted(maps.Keys(rs.targets)) {
		t := rs.targets[name]
		if t.ambiguous != "" {
			continue
		}
		typ := t.typ.celType()
		opts = append(opts,
			cel.Function(t.funcName(fnRef), cel.Overload(t.funcName(fnRef), []*cel.Type{viewType, cel.StringType}, typ,
				cel.BinaryBinding(func(v, name ref.Val) ref.Val { return withView(v, func(vw *view) ref.Val { return vw.ref(t, name) }) }))),
			cel.Function(t.funcName(fnOwners), cel.Overload(t.funcName(fnOwners), []*cel.Type{viewType, cel.DynType}, cel.ListType(typ),
				cel.BinaryBinding(func(v, obj ref.Val) ref.Val { return withView(v, func(vw *view) ref.Val { return vw.owners(t, obj) }) }))),
			cel.Function(t.funcName(fnSelected), cel.Overload(t.funcName(fnSelected), []*cel.Type{viewType, cel.DynType}, cel.ListType(typ),
				cel.BinaryBinding(func(v, sel ref.Val) ref.Val {
					return withView(v, func(vw *view) ref.Val { return vw.selected(t, sel) })
				}))),
		)
	}
	return opts
}

// expander rewrites fn('target', x) to the target's function over the observation and x; an argument that
// is not a quoted group or kind is a compile error.
func (rs *refSet) expander(fn string) cel.MacroFactory {
	return func(eh cel.MacroExprFactory, _ ast.Expr, args []ast.Expr) (ast.Expr, *common.Error) {
		if len(args) != 2 {
			var at int64 // the first argument's place, or none for fn()
			if len(args) > 0 {
				at = args[0].ID()
			}
			return nil, eh.NewError(at, fmt.Sprintf("%s takes two arguments, a group name or a kind in quotes and %s; got %d", fn, refSecondArg[fn], len(args)))
		}
		lit := args[0]
		name, ok := "", lit.Kind() == ast.LiteralKind
		if ok {
			var s types.String
			s, ok = lit.AsLiteral().(types.String)
			name = string(s)
		}
		t := rs.targets[name]
		switch {
		case !ok:
			return nil, eh.NewError(lit.ID(), fmt.Sprintf("%s: the first argument must be a group name or a kind in quotes, e.g. %s('targetgroups', ...)", fn, fn))
		case t == nil:
			return nil, eh.NewError(lit.ID(), fmt.Sprintf("%s: unknown group or kind %q (known: %s)", fn, name, rs.known))
		case t.ambiguous != "":
			return nil, eh.NewError(lit.ID(), fmt.Sprintf("%s: %s", fn, t.ambiguous))
		}
		return eh.NewCall(t.funcName(fn), eh.NewIdent(viewVar), args[1]), nil
	}
}

// usesRefs reports whether a checked expression calls a reference function.
func usesRefs(e ast.Expr) bool {
	found := false
	ast.PreOrderVisit(e, ast.NewExprVisitor(func(e ast.Expr) {
		if e.Kind() == ast.CallKind && strings.HasPrefix(e.AsCall().FunctionName(), "@") {
			found = true
		}
	}))
	return found
}

// argTypeProblem says why a checked expression passes owners or selected something that cannot be an object
// or a selector (a string, a number, a list...), which would type-check as dyn and only fail, or select
// nothing, at run time; "" when every call is fine.
func argTypeProblem(checked *ast.AST) string {
	problem := ""
	ast.PreOrderVisit(checked.Expr(), ast.NewExprVisitor(func(e ast.Expr) {
		if problem != "" || e.Kind() != ast.CallKind {
			return
		}
		call := e.AsCall()
		fn, _, _ := strings.Cut(strings.TrimPrefix(call.FunctionName(), "@"), ":")
		if (fn != fnOwners && fn != fnSelected) || !strings.HasPrefix(call.FunctionName(), "@") || len(call.Args()) != 2 {
			return
		}
		arg := checked.GetType(call.Args()[1].ID())
		switch arg.Kind() {
		case types.StringKind, types.IntKind, types.UintKind, types.DoubleKind, types.BoolKind, types.BytesKind,
			types.NullTypeKind, types.ListKind, types.DurationKind, types.TimestampKind, types.TypeKind:
			want := "an object whose ownerReferences name the owners, e.g. owners('deployments', object)"
			if fn == fnSelected {
				want = "a label selector (matchLabels/matchExpressions) or a map of labels, e.g. selected('pods', object.spec.selector)"
			}
			problem = fmt.Sprintf("%s: the second argument must be %s, not a %s", fn, want, arg)
		}
	}))
	return problem
}

package objects

import (
	"slices"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"

	"github.com/restartsim/restartsim/sim/fielderr"
)

// refWay is a set of AWSRef fields that together find a resource.
type refWay []string

// refFieldOrder is every AWSRef field that holds an expression, in the order of the reference.
var refFieldOrder = []string{"arn", "id", "zone", "name", "type", "setIdentifier"}

func (r *AWSRef) field(name string) string {
	if p := r.fieldPtr(name); p != nil {
		return *p
	}
	return ""
}

func (r *AWSRef) fieldPtr(name string) *string {
	switch name {
	case "arn":
		return &r.ARN
	case "name":
		return &r.Name
	case "id":
		return &r.ID
	case "zone":
		return &r.Zone
	case "type":
		return &r.Type
	case "setIdentifier":
		return &r.SetIdentifier
	}
	return nil
}

// awsRef is a compiled AWSRef: the way it finds its resource and the expressions of that way's fields (and
// optional ones), in refFieldOrder.
type awsRef struct {
	kind   *registeredKind
	way    string // the way's first field: "arn", "name", "id" or "zone"
	fields []string
	exprs  []*expr
}

// checkRef validates ref's fields for its kind, reporting at path (fleet.objects[i].aws), and returns the way
// it finds its resource.
func checkRef(ref *AWSRef, path string, errs *fielderr.List) (refWay, bool) {
	kind, ok := awsKinds.lookup(ref.Kind)
	if !ok {
		errs.Addf(fieldPath(path, "kind"), "%q is not one of %s", ref.Kind, strings.Join(awsKinds.names, ", "))
		return nil, false
	}
	rules := kind.refWays()
	var given []string
	for _, f := range refFieldOrder {
		if ref.field(f) != "" {
			given = append(given, f)
		}
	}
	bad := false
	for _, f := range given {
		if !slices.Contains(rules.optional, f) && !slices.ContainsFunc(rules.ways, func(w refWay) bool { return slices.Contains(w, f) }) {
			errs.Addf(fieldPath(path, f), "a %s is not found by %s; give %s", ref.Kind, f, describeWays(rules.ways))
			bad = true
		}
	}
	if bad {
		return nil, false
	}
	var full []refWay
	for _, w := range rules.ways {
		if !slices.ContainsFunc(w, func(f string) bool { return ref.field(f) == "" }) {
			full = append(full, w)
		}
	}
	switch {
	case len(full) == 1:
		return full[0], true
	case len(rules.ways) == 1:
		for _, f := range rules.ways[0] {
			if ref.field(f) == "" {
				errs.Addf(fieldPath(path, f), "required: a %s is found by %s", ref.Kind, describeWays(rules.ways))
			}
		}
	default:
		errs.Addf(path, "give %s", describeWays(rules.ways))
	}
	return nil, false
}

func describeWays(ways []refWay) string {
	alts := make([]string, len(ways))
	for i, w := range ways {
		alts[i] = joinAnd(w)
	}
	if len(alts) == 1 {
		return alts[0]
	}
	return "one of " + strings.Join(alts[:len(alts)-1], ", ") + " and " + alts[len(alts)-1]
}

func joinAnd(fields []string) string {
	if len(fields) == 1 {
		return fields[0]
	}
	return strings.Join(fields[:len(fields)-1], ", ") + " and " + fields[len(fields)-1]
}

// compileRef compiles the expressions of ref's way (and its optional fields) in env, whose `aws` is null.
func compileRef(env *celEnv, ref *AWSRef, way refWay, path string, errs *fielderr.List) *awsRef {
	kind, _ := awsKinds.lookup(ref.Kind) // checkRef found it
	r := &awsRef{kind: kind, way: way[0]}
	checker, checks := kind.awsKind.(literalChecker)
	ok := true
	for _, f := range refFieldOrder {
		if !slices.Contains(way, f) && !(ref.field(f) != "" && slices.Contains(kind.refWays().optional, f)) {
			continue
		}
		x := compileInto(env, ref.field(f), fieldPath(path, f), cel.StringType, errs)
		if x != nil && x.isLiteral && checks {
			if problem := checker.checkLiteral(f, x.literal); problem != "" {
				errs.Addf(fieldPath(path, f), "%s", problem)
				x = nil
			}
		}
		ok = ok && x != nil
		r.fields, r.exprs = append(r.fields, f), append(r.exprs, x)
	}
	if !ok {
		return nil
	}
	return r
}

// id evaluates the reference's expressions for act's object (with the objects its reference functions
// reach); false when one fails (e.g. the status does not hold the ARN yet).
func (r *awsRef) id(act *activation) (awsID, bool) {
	if r == nil {
		return awsID{}, false
	}
	var v AWSRef // the values, by field
	vals := make([]string, 0, len(r.exprs))
	for i, x := range r.exprs {
		s, err := x.evalString(&activation{object: act.object, aws: types.NullValue, view: act.view})
		if err != nil {
			return awsID{}, false
		}
		*v.fieldPtr(r.fields[i]) = s
		vals = append(vals, s)
	}
	return awsID{keys: r.kind.keys(r.way, v), label: strings.Join(vals, " ")}, true
}

// usesRefs reports whether one of the reference's expressions calls a reference function.
func (r *awsRef) usesRefs() bool {
	if r == nil {
		return false
	}
	return slices.ContainsFunc(r.exprs, func(x *expr) bool { return x.refs })
}

// awsID is what an object's reference found its AWS resource by: the snapshot keys and a label for messages.
type awsID struct {
	keys  []resourceKey
	label string
}

// found reports whether snap holds a resource of kind under the id.
func (id awsID) found(kind string, snap *Snapshot) bool {
	return len(id.keys) > 0 && snap.lookup(kind, id.keys...) != nil
}

// resourceID is the identity of the id's resource of kind as fakeaws.Call.Resources names it, from the first
// of its keys that resolves in snap; "" when none does.
func (id awsID) resourceID(kind string, snap *Snapshot) string {
	k, ok := awsKinds.lookup(kind)
	if !ok {
		return ""
	}
	for _, key := range id.keys {
		if name := k.callName(snap, key); name != "" {
			return name
		}
	}
	return ""
}

package objects

import (
	"reflect"
	"slices"
	"sync"

	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// awsKind is one AWS resource kind an AWSRef may name. Each kind is one file: its type, the Go type of its
// `aws` value and how the snapshot lists and finds it; it joins awsKinds with one line.
type awsKind interface {
	// name is the kind as AWSRef.Kind spells it.
	name() string
	// view is the Go type behind `aws` (a pointer's element); the structural schema of its JSON form types
	// the conditions, as a CRD's schema types `object`.
	view() reflect.Type
	// refWays are the sets of AWSRef fields that find the kind's resource and the fields that may
	// accompany any of them.
	refWays() refWays
	// keys are the snapshot keys a reference's values (its fields evaluated for one object) find the
	// resource under, tried in order; way is the first field of the reference's way.
	keys(way string, v AWSRef) []resourceKey
	// callName is the resource's identity as fakeaws.Call.Resources names it, from one of its keys and
	// what s holds; "" when s cannot resolve it.
	callName(s *Snapshot, k resourceKey) string
	// list indexes every resource of the kind in the state r reads, calling add once per resource with
	// its view and the keys it is found under.
	list(r *stateReads, add addFunc) error
}

// addFunc indexes one resource of a kind under keys.
type addFunc func(view any, keys ...resourceKey)

// unnamedKind is a kind no AWS call names (the call log does not say which instance a launch made).
type unnamedKind interface{ unnamedByCalls() }

// literalChecker is a kind that checks a reference field's literal value when it compiles (a record set's
// type), returning the problem or "".
type literalChecker interface {
	checkLiteral(field, literal string) string
}

// refWays are a kind's ways to find a resource (exactly one must be given) and the fields that may accompany
// any of them.
type refWays struct {
	ways     []refWay
	optional []string
}

// resourceKey is what the snapshot finds a resource by: an AWSRef field (arn, name, id, or zone for a
// record set) and its value; a record set's key adds its name, type and set identifier.
type resourceKey struct {
	by, value        string
	name, typ, setID string
}

// byKey is the key of a resource found by one field's value.
func byKey(field, value string) resourceKey { return resourceKey{by: field, value: value} }

// kindInfo is what a kind declares as data: its name, the Go type of its `aws` value, and the ways to find
// its resource. Embedded in a kind, it answers name, view and refWays, and keys for a resource found by
// one field's value as given.
type kindInfo struct {
	kind     string
	viewType reflect.Type
	ways     refWays
}

func (i kindInfo) name() string       { return i.kind }
func (i kindInfo) view() reflect.Type { return i.viewType }
func (i kindInfo) refWays() refWays   { return i.ways }
func (i kindInfo) keys(way string, v AWSRef) []resourceKey {
	return []resourceKey{byKey(way, v.field(way))}
}

// waysOf are ways that each find a resource by one field.
func waysOf(fields ...string) refWays {
	w := refWays{}
	for _, f := range fields {
		w.ways = append(w.ways, refWay{f})
	}
	return w
}

// awsKinds is the table of AWS kinds. Adding a kind is its file and one line here.
var awsKinds = newKindTable(
	targetGroupKind,
	loadBalancerKind,
	listenerKind,
	ruleKind,
	hostedZoneKind,
	recordSetKind,
	securityGroupKind,
	s3BucketKind,
	ec2InstanceKind,
)

// kindTable holds the registered kinds by name. Register before use: it is read without locks.
type kindTable struct {
	byName map[string]*registeredKind
	names  []string // sorted, for validation and messages
}

// registeredKind is a kind with the schemas of its `aws` value, derived once on first use.
type registeredKind struct {
	awsKind
	schemas func() kindSchemas
}

type kindSchemas struct {
	tree *schemaTree
	decl *apiservercel.DeclType
}

func newKindTable(kinds ...awsKind) *kindTable {
	t := &kindTable{byName: map[string]*registeredKind{}}
	for _, k := range kinds {
		t.register(k)
	}
	return t
}

// register adds k, replacing a kind of the same name.
func (t *kindTable) register(k awsKind) {
	name := k.name()
	t.byName[name] = &registeredKind{awsKind: k, schemas: sync.OnceValue(func() kindSchemas {
		s := structuralOf(k.view())
		return kindSchemas{tree: newSchemaTree(&s), decl: model.SchemaDeclType(&s, false).MaybeAssignTypeName("restartsim.aws." + name)}
	})}
	if !slices.Contains(t.names, name) {
		t.names = append(t.names, name)
		slices.Sort(t.names)
	}
}

// unregister removes the kind of that name.
func (t *kindTable) unregister(name string) {
	delete(t.byName, name)
	t.names = slices.DeleteFunc(t.names, func(n string) bool { return n == name })
}

// lookup finds the kind of that name.
func (t *kindTable) lookup(name string) (*registeredKind, bool) {
	k, ok := t.byName[name]
	return k, ok
}

// value is view's CEL value as conditions read `aws`.
func (k *registeredKind) value(view any) ref.Val {
	return common.UnstructuredToVal(jsonValue(reflect.ValueOf(view)), k.schemas().tree)
}

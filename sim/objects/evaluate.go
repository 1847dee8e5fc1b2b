package objects

import (
	"fmt"
	"strconv"
	"time"

	"github.com/google/cel-go/common/types"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// Status is what the fleet's conditions say of the objects at one snapshot.
type Status struct {
	// Time is the snapshot's scenario time.
	Time time.Time
	// Groups are the groups in the scenario's order.
	Groups []GroupStatus
	// Violations are the objects whose invariant does not hold.
	Violations []Violation
}

// GroupStatus counts one group's objects.
type GroupStatus struct {
	Name string
	// Count is the group's size; Present how many of its objects exist; Ready how many of those are ready.
	Count, Present, Ready int
	// NotReady are the first MaxListed objects that exist but are not ready, with why.
	NotReady []ObjectStatus
}

// ObjectStatus names one object and why it is not ready.
type ObjectStatus struct {
	Index  int
	Key    k8stypes.NamespacedName
	Reason string
}

// MaxListed bounds the objects a GroupStatus lists.
const MaxListed = 5

// AllReady reports whether every object of every group exists and is ready.
func (s Status) AllReady() bool {
	for _, g := range s.Groups {
		if g.Ready < g.Count {
			return false
		}
	}
	return true
}

// Holds reports whether every object is ready and every invariant holds: the fleet's steady state.
func (s Status) Holds() bool { return s.AllReady() && len(s.Violations) == 0 }

// Violation is an object whose invariant does not hold.
type Violation struct {
	Group string
	Index int
	Key   k8stypes.NamespacedName
	// Path is the invariant's field path, e.g. fleet.objects[0].invariant.
	Path       string
	Expression string
	// Message says why: false, with the values of the fields it reads, or the evaluation error.
	Message string
	// Orphan is the AWS kind of the resource a deleted object left behind ("" for any other violation).
	Orphan string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: %s object %d (%s): invariant %s %s", v.Path, v.Group, v.Index, v.Key, v.Expression, v.Message)
}

// Check evaluates the conditions of objs (the run's objects, as listed or cached; objects without the
// harness's labels or of no known group are skipped, and so is a second object at the same index) against
// snap. The reference functions of the conditions search objs. A deleted object no longer counts; it is a
// violation while it still exists or AWS still holds its resource.
func (f *CompiledGroups) Check(objs []*unstructured.Unstructured, snap *Snapshot) Status {
	st := Status{Groups: make([]GroupStatus, len(f.groups))}
	if snap != nil {
		st.Time = snap.Time
	}
	if f.needsObjects() {
		snap = snap.WithObjects(f.IndexObjects(objs))
	}
	pos := map[string]int{}
	seen := map[string]map[int]bool{}
	for i, g := range f.groups {
		st.Groups[i] = GroupStatus{Name: g.Name, Count: g.members.liveCount()}
		pos[g.Name], seen[g.Name] = i, map[int]bool{}
	}
	for _, o := range objs {
		g, index, ok := f.objectGroup(o)
		if !ok || seen[g.Name][index] {
			continue
		}
		seen[g.Name][index] = true
		if g.members.wasDeleted(index) != nil {
			id := g.awsKey(o.Object, snap)
			g.members.noteAWSKey(index, id)
			continue
		}
		gs := &st.Groups[pos[g.Name]]
		gs.Present++
		r := g.evaluate(o, snap, index)
		if r.ready {
			gs.Ready++
		} else if len(gs.NotReady) < MaxListed {
			gs.NotReady = append(gs.NotReady, ObjectStatus{Index: index, Key: keyOf(o), Reason: r.reason})
		}
		if r.violation != nil {
			st.Violations = append(st.Violations, *r.violation)
		}
	}
	for _, g := range f.groups {
		st.Violations = append(st.Violations, g.leftovers(seen[g.Name], snap)...)
	}
	return st
}

// leftovers are the violations of the group's deleted objects: one that still exists (present), and one
// whose AWS resource AWS still holds (an orphan).
func (g *group) leftovers(present map[int]bool, snap *Snapshot) []Violation {
	indexes, deleted := g.members.deletedIndexes()
	var out []Violation
	for _, i := range indexes {
		d := deleted[i]
		v := Violation{Group: g.Name, Index: i, Key: d.key, Path: g.path, Expression: "deleted: the object and its AWS resource are gone"}
		switch {
		case present[i]:
			v.Message = "is false: the object still exists"
		case g.AWS != nil && d.awsKey.found(g.AWS.Kind, snap):
			v.Path = fieldPath(g.path, "aws")
			v.Message = fmt.Sprintf("is false: AWS still holds %s %s (an orphan)", g.AWS.Kind, d.awsKey.label)
			v.Orphan = g.AWS.Kind
		default:
			continue
		}
		out = append(out, v)
	}
	return out
}

// needsObjects reports whether a condition of the fleet calls a reference function.
func (f *CompiledGroups) needsObjects() bool {
	for _, g := range f.groups {
		for _, x := range []*expr{g.ready, g.inv} {
			if x != nil && x.refs {
				return true
			}
		}
		if g.ref.usesRefs() {
			return true
		}
	}
	return false
}

// Ready reports whether one of the fleet's objects is ready; an error says why not.
func (f *CompiledGroups) Ready(obj *unstructured.Unstructured, snap *Snapshot) (bool, error) {
	g, index, ok := f.objectGroup(obj)
	if !ok {
		return false, fmt.Errorf("%s is not an object of the fleet (labels %s and %s)", keyOf(obj), GroupLabel, IndexLabel)
	}
	r := g.evaluate(obj, snap, index)
	if !r.ready {
		return false, fmt.Errorf("%s", r.reason)
	}
	return true, nil
}

// objectGroup finds an object's group and index by the harness's labels.
func (f *CompiledGroups) objectGroup(o *unstructured.Unstructured) (*group, int, bool) {
	labels := o.GetLabels()
	g := f.byName[labels[GroupLabel]]
	index, err := strconv.Atoi(labels[IndexLabel])
	gvk := o.GroupVersionKind()
	if g == nil || err != nil || index < 0 || index >= g.members.made() || !gvk.Empty() && gvk != g.kind.GVK {
		return nil, 0, false
	}
	return g, index, true
}

func keyOf(o *unstructured.Unstructured) k8stypes.NamespacedName {
	return k8stypes.NamespacedName{Namespace: o.GetNamespace(), Name: o.GetName()}
}

// result is one object's conditions.
type result struct {
	ready     bool
	reason    string // why not ready
	violation *Violation
}

func (g *group) evaluate(o *unstructured.Unstructured, snap *Snapshot, index int) result {
	act := g.bind(o.Object, snap)
	r := result{ready: true}
	if g.ready != nil {
		ok, err := g.ready.evalBool(act)
		switch {
		case err != nil:
			r.ready, r.reason = false, fmt.Sprintf("ready %s: %v", g.ready.text, err)
		case !ok:
			r.ready, r.reason = false, fmt.Sprintf("ready %s is false: %s", g.ready.text, g.ready.explain(act))
		}
	}
	if g.inv != nil {
		ok, err := g.inv.evalBool(act)
		msg := ""
		switch {
		case err != nil:
			msg = "fails: " + err.Error()
		case !ok:
			msg = "is false: " + g.inv.explain(act)
		}
		if msg != "" {
			r.violation = &Violation{Group: g.Name, Index: index, Key: keyOf(o), Path: g.inv.path, Expression: g.inv.text, Message: msg}
		}
	}
	return r
}

// bind is the activation of an object's conditions over snap: the object, its AWS resource, and the objects
// the reference functions reach when snap holds them.
func (g *group) bind(obj map[string]any, snap *Snapshot) *activation {
	act := &activation{object: g.env.objectVal(obj), aws: types.NullValue}
	if snap != nil && snap.objects != nil {
		ns, _, _ := unstructured.NestedString(obj, "metadata", "namespace")
		act.view = viewVal{&view{idx: snap.objects, namespace: ns}}
	}
	if g.ref != nil && snap != nil {
		if id, ok := g.ref.id(act); ok {
			act.aws = snap.lookup(g.AWS.Kind, id.keys...).value()
		} // else not known yet, e.g. before the controller wrote the ARN to the status
	}
	return act
}

// awsKey is what obj's reference finds its AWS resource by; the zero awsID (no keys) when it names none yet.
func (g *group) awsKey(obj map[string]any, snap *Snapshot) awsID {
	id, _ := g.ref.id(g.bind(obj, snap)) // a nil ref names none
	return id
}

// ResourceID is the identity of an object's AWS resource as fakeaws.Call.Resources names it: an ELBv2
// resource's ARN, a hosted zone's or a record set's zone ID (a zone given by name found in snap), a
// security group's ID, a bucket's name. "" when the object does not name one yet or snap cannot resolve
// it (an ELBv2 resource or security group given by name that AWS does not hold, a zone AWS does not hold).
func (f *CompiledGroups) ResourceID(obj *unstructured.Unstructured, snap *Snapshot) string {
	g, _, ok := f.objectGroup(obj)
	if !ok || g.ref == nil {
		return ""
	}
	id := g.awsKey(obj.Object, snap)
	return id.resourceID(g.AWS.Kind, snap)
}

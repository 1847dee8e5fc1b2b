package objects

import (
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/fakeaws"
)

// What an ObjectChange did to its object.
const (
	ChangePatch  = "patch"
	ChangeCreate = "create"
	ChangeDelete = "delete"
)

// ObjectChange is one object's patch, creation or deletion, made by a churn step: what changed and how to tell
// that AWS shows it.
type ObjectChange struct {
	Group string
	Index int
	Key   k8stypes.NamespacedName
	// Seq is the change's sequence number ({{.Seq}} in a patch).
	Seq int
	// Kind is ChangePatch, ChangeCreate or ChangeDelete.
	Kind string
	// Desired is the object as the harness wrote it (the API server's answer to the patch or create; for a
	// delete, the object as it was): a patch's Applied condition reads it as `object`.
	Desired *unstructured.Unstructured
	// Mutations are the AWS operations that apply the change.
	Mutations []string
	// ResourceID is the identity of the object's AWS resource (as fakeaws.Call.Resources names it: an
	// ELBv2 ARN, or a Route53, security group or S3 ID) when known at the change ("" when not: see
	// ResolveResourceID).
	ResourceID string

	f       *CompiledGroups
	g       *group
	applied *expr // nil: a create judged by the group's ready and invariant, or a delete
}

var errNoObjects = errors.New("a create or delete is judged on an observation of the objects, which this snapshot lacks (Snapshot.WithObjects)")

// NeedsObjects reports whether Applied needs a snapshot that carries the objects (Snapshot.WithObjects): for a
// create or delete, or a condition that calls a reference function.
func (c *ObjectChange) NeedsObjects() bool {
	return c.Kind != ChangePatch || c.applied != nil && c.applied.refs || c.g.ref.usesRefs()
}

// Applied reports whether snap shows the change. A patch: its Applied condition over the desired object and
// its AWS resource. A create: its Applied condition, or else the group's ready and invariant, over the object
// as observed. A delete: the object is gone (its finalizers done) and AWS no longer holds the resource it
// named. An evaluation error (e.g. a field AWS does not have yet) counts as not applied.
func (c *ObjectChange) Applied(snap *Snapshot) (bool, error) {
	if c.NeedsObjects() && snap.Objects() == nil {
		return false, errNoObjects
	}
	switch c.Kind {
	case ChangeCreate:
		return c.createApplied(snap)
	case ChangeDelete:
		return c.deleteApplied(snap), nil
	}
	return c.eval(c.applied, c.g.bind(c.Desired.Object, snap))
}

func (c *ObjectChange) eval(x *expr, act *activation) (bool, error) {
	ok, err := x.evalBool(act)
	if err != nil {
		return false, fmt.Errorf("%s: %s %s: %w", c.Key, x.path, x.text, err)
	}
	return ok, nil
}

func (c *ObjectChange) live(snap *Snapshot) *unstructured.Unstructured {
	return snap.Objects().get(c.g.kind.GVK, c.Key)
}

func (c *ObjectChange) createApplied(snap *Snapshot) (bool, error) {
	live := c.live(snap)
	if live == nil {
		return false, nil
	}
	act := c.g.bind(live.Object, snap)
	for _, x := range c.createConditions() {
		if ok, err := c.eval(x, act); !ok {
			return false, err
		}
	}
	return true, nil
}

// createConditions are what a create waits for: its Applied, or else the group's ready and invariant.
func (c *ObjectChange) createConditions() []*expr {
	if c.applied != nil {
		return []*expr{c.applied}
	}
	return slices.DeleteFunc([]*expr{c.g.ready, c.g.inv}, func(x *expr) bool { return x == nil })
}

func (c *ObjectChange) deleteApplied(snap *Snapshot) bool {
	if live := c.live(snap); live != nil {
		id := c.g.awsKey(live.Object, snap)
		c.g.members.noteAWSKey(c.Index, id)
		return false
	}
	return c.orphan(snap) == ""
}

// orphan names the AWS resource a deleted object left, "" when AWS holds none (or the object never named one).
func (c *ObjectChange) orphan(snap *Snapshot) string {
	d := c.g.members.wasDeleted(c.Index)
	if c.g.AWS == nil || d == nil {
		return ""
	}
	_, deleted := c.g.members.deletedIndexes()
	if id := deleted[c.Index].awsKey; id.found(c.g.AWS.Kind, snap) {
		return c.g.AWS.Kind + " " + id.label
	}
	return ""
}

// Explain gives the values the change's conditions read, for a change that never showed.
func (c *ObjectChange) Explain(snap *Snapshot) string {
	if c.NeedsObjects() && snap.Objects() == nil {
		return errNoObjects.Error()
	}
	switch c.Kind {
	case ChangeDelete:
		if c.live(snap) != nil {
			return "the object still exists"
		}
		if o := c.orphan(snap); o != "" {
			return "AWS still holds " + o
		}
		return "gone"
	case ChangeCreate:
		live := c.live(snap)
		if live == nil {
			return "the object does not exist"
		}
		act := c.g.bind(live.Object, snap)
		var out []string
		for _, x := range c.createConditions() {
			out = append(out, x.explain(act))
		}
		return fmt.Sprint(out)
	}
	return c.applied.explain(c.g.bind(c.Desired.Object, snap))
}

// UnnamedByCalls says no call can name the change's resource: its group has no aws mapping (e.g.
// Pods a node provisioner places), or maps to EC2 instances, which the call log does not name (a
// pod's instance does not exist before the launch that applies it). Any call of its Mutations may
// then be the one applying it.
func (c *ObjectChange) UnnamedByCalls() bool {
	if c.g == nil {
		return false
	}
	if c.g.ref == nil {
		return true
	}
	_, unnamed := c.g.ref.kind.awsKind.(unnamedKind)
	return unnamed
}

// ResolveResourceID fills ResourceID from snap when it was not known at the change (a resource found by
// name, created later, an ARN the controller writes to a created object's status, or a record set whose
// zone is given by name); it returns the ResourceID.
func (c *ObjectChange) ResolveResourceID(snap *Snapshot) string {
	if c.ResourceID != "" {
		return c.ResourceID
	}
	obj := c.Desired
	if live := c.live(snap); live != nil {
		obj = live
	}
	switch {
	case c.Kind == ChangeDelete && c.g.AWS != nil:
		_, deleted := c.g.members.deletedIndexes()
		c.ResourceID = deleted[c.Index].awsKey.resourceID(c.g.AWS.Kind, snap)
	default:
		c.ResourceID = c.f.ResourceID(obj, snap)
	}
	return c.ResourceID
}

// IsMutation reports whether a recorded AWS call is one of the change's Mutations, successful and naming its
// resource: the change's first meaningful mutation is the first such call after the change. (Calls name
// ELBv2 resources by the ARNs they carry, so a rule is matched through its listener's ARN only if the
// scenario's ARN expression gives that; a ChangeResourceRecordSets names each record set it changed.)
func (c *ObjectChange) IsMutation(call fakeaws.Call) bool {
	if c.ResourceID == "" || call.Outcome != fakeaws.OutcomeOK || !slices.Contains(c.Mutations, call.Operation) {
		return false
	}
	return slices.Contains(call.Resources(), c.ResourceID)
}

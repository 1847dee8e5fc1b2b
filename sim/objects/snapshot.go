package objects

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSState is the AWS state conditions read: *fakeaws.Server satisfies it (an adapter of the admin API's
// state dump can too). Reading it spends no throttle tokens and records no calls.
type AWSState interface {
	// Now is the scenario time (a load balancer's state depends on it).
	Now() time.Time
	TargetGroups() []fakeaws.TargetGroup
	Targets(tgARN string) ([]fakeaws.TargetHealth, error)
	LoadBalancers() []fakeaws.LoadBalancer
	Listeners(lbARN string) ([]fakeaws.Listener, error)
	Rules(listenerARN string) ([]fakeaws.ListenerRule, error)
	SecurityGroups() []fakeaws.SecurityGroup
	S3Buckets() ([]fakeaws.S3Bucket, error)
	HostedZones() []fakeaws.HostedZone
	RecordSets(zoneID string) ([]fakeaws.RecordSet, error)
	Instances() []fakeaws.Instance
}

var _ AWSState = (*fakeaws.Server)(nil)

// Snapshot is AWS's state at one moment, indexed by the keys AWSRefs find resources by (ARN, name, ID,
// zone and name and type), from which conditions take `aws`. Take one per poll and evaluate every object
// against it; it is safe for concurrent use.
type Snapshot struct {
	// Time is the scenario time the snapshot was taken.
	Time time.Time

	// byKey maps kind → key → entry; nil for a key two resources share (two security groups of one name
	// in different VPCs), which finds neither.
	byKey map[string]map[resourceKey]*awsEntry
	n     int
	// zoneIDs map a hosted zone's ID, and its canonical name where only one zone has it, to its ID.
	zoneIDs map[string]string
	// objects are the fleet's objects observed with it, which the reference functions of conditions search
	// (nil: none).
	objects *ObjectIndex
}

// WithObjects is the snapshot with the objects observed with it, for conditions that call reference
// functions and for the changes that create or delete objects; s may be nil (no AWS resources).
func (s *Snapshot) WithObjects(idx *ObjectIndex) *Snapshot {
	out := &Snapshot{objects: idx}
	if s != nil {
		out.Time, out.byKey, out.n, out.zoneIDs = s.Time, s.byKey, s.n, s.zoneIDs
	}
	return out
}

// Objects is the observation of the fleet's objects the snapshot carries (nil: none).
func (s *Snapshot) Objects() *ObjectIndex {
	if s == nil {
		return nil
	}
	return s.objects
}

// awsEntry is one resource; its CEL value is made once, when a condition first reads it.
type awsEntry struct {
	kind *registeredKind
	view any // *targetGroupView, ...
	once sync.Once
	val  ref.Val
}

// TakeSnapshot reads the state of the given AWS kinds (all when none are given). A resource deleted while the
// snapshot is taken is left out.
func TakeSnapshot(src AWSState, kinds ...string) (*Snapshot, error) {
	if len(kinds) == 0 {
		kinds = awsKinds.names
	}
	wanted := make([]*registeredKind, 0, len(kinds))
	for _, name := range kinds {
		k, ok := awsKinds.lookup(name)
		if !ok {
			return nil, fmt.Errorf("unknown AWS kind %q (known: %v)", name, awsKinds.names)
		}
		if !slices.Contains(wanted, k) {
			wanted = append(wanted, k)
		}
	}
	s := &Snapshot{Time: src.Now(), byKey: map[string]map[resourceKey]*awsEntry{}}
	reads := newStateReads(src, s.Time)
	for _, k := range wanted {
		if err := k.list(reads, func(view any, keys ...resourceKey) { s.addKeys(k, view, keys...) }); err != nil {
			return nil, err
		}
	}
	s.zoneIDs = reads.zoneIDs
	return s, nil
}

// addKeys indexes a resource under keys; a key already taken by another resource finds neither.
func (s *Snapshot) addKeys(kind *registeredKind, view any, keys ...resourceKey) {
	e := &awsEntry{kind: kind, view: view}
	s.n++
	m := s.byKey[kind.name()]
	if m == nil {
		m = map[resourceKey]*awsEntry{}
		s.byKey[kind.name()] = m
	}
	for _, k := range keys {
		if _, taken := m[k]; taken {
			m[k] = nil
			continue
		}
		m[k] = e
	}
}

// Len is the number of resources in the snapshot.
func (s *Snapshot) Len() int { return s.n }

// lookup returns the entry of kind under the first of keys that finds one; nil when none does.
func (s *Snapshot) lookup(kind string, keys ...resourceKey) *awsEntry {
	if s == nil {
		return nil
	}
	for _, k := range keys {
		if e := s.byKey[kind][k]; e != nil {
			return e
		}
	}
	return nil
}

// value is the entry's CEL value (null for a missing resource), built on first use.
func (e *awsEntry) value() ref.Val {
	if e == nil {
		return types.NullValue
	}
	e.once.Do(func() {
		e.val = e.kind.value(e.view)
	})
	return e.val
}

// zoneID is the ID of the hosted zone known by zone (its ID, or its canonical name when only one zone has
// it) in s; "" when s holds no such zone.
func (s *Snapshot) zoneID(zone string) string {
	if s == nil {
		return ""
	}
	return s.zoneIDs[zone]
}

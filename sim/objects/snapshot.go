package objects

import (
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apiserver/pkg/cel/common"

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

	// byKey maps kind → key ("arn\x00ARN", "name\x00NAME", ...) → entry; nil for a key two resources share
	// (two security groups of one name in different VPCs), which finds neither.
	byKey map[string]map[string]*awsEntry
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
	kind string
	view any // *targetGroupView, ...
	once sync.Once
	val  ref.Val
}

// TakeSnapshot reads the state of the given AWS kinds (all when none are given). A resource deleted while the
// snapshot is taken is left out.
func TakeSnapshot(src AWSState, kinds ...string) (*Snapshot, error) {
	want := func(k string) bool { return len(kinds) == 0 || slices.Contains(kinds, k) }
	for _, k := range kinds {
		if _, ok := awsViewTypes[k]; !ok {
			return nil, fmt.Errorf("unknown AWS kind %q (known: %v)", k, AWSKinds)
		}
	}
	s := &Snapshot{Time: src.Now(), byKey: map[string]map[string]*awsEntry{}}
	if want(AWSTargetGroup) {
		for _, tg := range src.TargetGroups() {
			targets, err := src.Targets(tg.ARN)
			if err != nil {
				continue // deleted meanwhile
			}
			s.add(AWSTargetGroup, tg.ARN, tg.Name, &targetGroupView{TargetGroup: tg, Targets: targets})
		}
	}
	if want(AWSLoadBalancer) || want(AWSListener) || want(AWSRule) {
		for _, lb := range src.LoadBalancers() {
			ls, err := src.Listeners(lb.ARN)
			if err != nil {
				continue
			}
			if want(AWSLoadBalancer) {
				s.add(AWSLoadBalancer, lb.ARN, lb.Name, &loadBalancerView{LoadBalancer: lb, State: lb.StateAt(s.Time), Listeners: ls})
			}
			if want(AWSListener) || want(AWSRule) {
				s.addListeners(ls, src, want)
			}
		}
	}
	if err := s.addOthers(src, want); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Snapshot) addListeners(ls []fakeaws.Listener, src AWSState, want func(string) bool) {
	for _, l := range ls {
		rules, err := src.Rules(l.ARN)
		if err != nil {
			continue
		}
		if want(AWSListener) {
			s.add(AWSListener, l.ARN, "", &listenerView{Listener: l, Rules: rules})
		}
		if want(AWSRule) {
			for _, r := range rules {
				s.add(AWSRule, r.ARN, "", &ruleView{ListenerRule: r})
			}
		}
	}
}

// add indexes an ELBv2 resource by ARN and, when it has one, by name.
func (s *Snapshot) add(kind, arn, name string, view any) {
	keys := []string{"arn\x00" + arn}
	if name != "" {
		keys = append(keys, "name\x00"+name)
	}
	s.addKeys(kind, view, keys...)
}

// addKeys indexes a resource under keys; a key already taken by another resource finds neither.
func (s *Snapshot) addKeys(kind string, view any, keys ...string) {
	e := &awsEntry{kind: kind, view: view}
	s.n++
	m := s.byKey[kind]
	if m == nil {
		m = map[string]*awsEntry{}
		s.byKey[kind] = m
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
func (s *Snapshot) lookup(kind string, keys ...string) *awsEntry {
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

// ARN is the ARN of the ELBv2 resource of kind with that AWS name, "" when there is none.
func (s *Snapshot) ARN(kind, name string) string {
	if name == "" {
		return ""
	}
	if e := s.lookup(kind, "name\x00"+name); e != nil {
		return viewARN(e.view)
	}
	return ""
}

func viewARN(v any) string {
	switch v := v.(type) {
	case *targetGroupView:
		return v.ARN
	case *loadBalancerView:
		return v.ARN
	case *listenerView:
		return v.ARN
	case *ruleView:
		return v.ARN
	case *hostedZoneView:
		return v.ID // Route53 calls name their zone by ID, which stands in for an ARN
	case *recordSetView:
		return v.ZoneID
	}
	return ""
}

// value is the entry's CEL value (null for a missing resource), built on first use.
func (e *awsEntry) value() ref.Val {
	if e == nil {
		return types.NullValue
	}
	e.once.Do(func() {
		e.val = common.UnstructuredToVal(jsonValue(reflect.ValueOf(e.view)), awsSchemaTrees()[e.kind])
	})
	return e.val
}

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
}

var _ AWSState = (*fakeaws.Server)(nil)

// Snapshot is AWS's state at one moment, indexed by ARN and by name, from which conditions take `aws`. Take
// one per poll and evaluate every object against it; it is safe for concurrent use.
type Snapshot struct {
	// Time is the scenario time the snapshot was taken.
	Time time.Time

	byARN  map[string]*awsEntry
	byName map[string]map[string]*awsEntry // kind → AWS name → entry
	// objects are the fleet's objects observed with it, which the reference functions of conditions search
	// (nil: none).
	objects *ObjectIndex
}

// WithObjects is the snapshot with the objects observed with it, for conditions that call reference
// functions and for the changes that create or delete objects; s may be nil (no AWS resources).
func (s *Snapshot) WithObjects(idx *ObjectIndex) *Snapshot {
	out := &Snapshot{objects: idx}
	if s != nil {
		out.Time, out.byARN, out.byName = s.Time, s.byARN, s.byName
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
	s := &Snapshot{Time: src.Now(), byARN: map[string]*awsEntry{}, byName: map[string]map[string]*awsEntry{}}
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

func (s *Snapshot) add(kind, arn, name string, view any) {
	e := &awsEntry{kind: kind, view: view}
	s.byARN[arn] = e
	if name != "" {
		if s.byName[kind] == nil {
			s.byName[kind] = map[string]*awsEntry{}
		}
		s.byName[kind][name] = e
	}
}

// Len is the number of resources in the snapshot.
func (s *Snapshot) Len() int { return len(s.byARN) }

// find returns the entry of kind with the ARN or, when byName, the AWS name; nil when AWS has none.
func (s *Snapshot) find(kind, key string, byName bool) *awsEntry {
	if s == nil || key == "" {
		return nil
	}
	var e *awsEntry
	if byName {
		e = s.byName[kind][key]
	} else {
		e = s.byARN[key]
	}
	if e == nil || e.kind != kind {
		return nil
	}
	return e
}

// ARN is the ARN of the resource of kind with that AWS name, "" when there is none.
func (s *Snapshot) ARN(kind, name string) string {
	if e := s.find(kind, name, true); e != nil {
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

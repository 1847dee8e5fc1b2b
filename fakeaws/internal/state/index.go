package state

import (
	"cmp"
	"slices"
)

// order is a set of keys read in ascending order. Adding is O(1); the first read after a change sorts only the
// added keys and merges them in, so the pages of one listing cost O(page) each instead of a sort per call.
type order[K any] struct {
	cmp    func(a, b K) int
	sorted []K // ascending; may hold removed keys until the next read
	added  []K
	stale  bool // a key was removed since the last read
}

func (o *order[K]) add(k K) { o.added = append(o.added, k) }

// remove notes that some key left the set; keys drops it on the next read (live says which).
func (o *order[K]) remove() { o.stale = true }

// keys returns the live keys ascending. The slice is shared: callers must not modify it.
func (o *order[K]) keys(live func(K) bool) []K {
	if len(o.added) == 0 && !o.stale {
		return o.sorted
	}
	slices.SortFunc(o.added, o.cmp)
	merged := make([]K, 0, len(o.sorted)+len(o.added))
	i, j := 0, 0
	for i < len(o.sorted) || j < len(o.added) {
		var k K
		if j == len(o.added) || (i < len(o.sorted) && o.cmp(o.sorted[i], o.added[j]) <= 0) {
			k, i = o.sorted[i], i+1
		} else {
			k, j = o.added[j], j+1
		}
		if n := len(merged); n > 0 && o.cmp(merged[n-1], k) == 0 {
			continue // re-added key
		}
		if !o.stale || live(k) {
			merged = append(merged, k)
		}
	}
	o.sorted, o.added, o.stale = merged, nil, false
	return o.sorted
}

// tgKey orders target groups (and load balancers) as their Describe calls list them: by name, then ARN.
type tgKey struct{ name, arn string }

func cmpTGKey(a, b tgKey) int {
	if c := cmp.Compare(a.name, b.name); c != 0 {
		return c
	}
	return cmp.Compare(a.arn, b.arn)
}

// reindex rebuilds every index from the resource maps. New and Clone use it: a rebuilt index cannot disagree
// with the data it indexes, which a copied one could if Clone forgot a field.
func (s *Store) reindex() {
	s.tgByName = make(map[string]string, len(s.tgs))
	s.tgOrder = order[tgKey]{cmp: cmpTGKey}
	for arn, e := range s.tgs {
		s.tgByName[e.Name] = arn
		s.tgOrder.add(tgKey{e.Name, arn})
	}
	s.eniByIP = make(map[string][]string, len(s.enis))
	s.eniByInstance = make(map[string][]string, len(s.instances))
	s.sgUsers = map[string]int{}
	s.eniOrder = order[string]{cmp: cmp.Compare[string]}
	for id, e := range s.enis {
		s.indexENI(e)
		s.eniOrder.add(id)
	}
	s.instOrder = order[string]{cmp: cmp.Compare[string]}
	for id := range s.instances {
		s.instOrder.add(id)
	}
	s.reindexLoadBalancers()
}

// reindexLoadBalancers rebuilds the load balancer indexes (after sgUsers, which it adds to).
func (s *Store) reindexLoadBalancers() {
	s.lbByName = make(map[string]string, len(s.lbs))
	s.lbOrder = order[tgKey]{cmp: cmpTGKey}
	for arn, lb := range s.lbs {
		s.lbByName[lb.Name] = arn
		s.lbOrder.add(tgKey{lb.Name, arn})
		for _, g := range lb.SecurityGroupIDs {
			s.sgUsers[g]++
		}
	}
	s.listenersByLB = map[string][]string{}
	s.tgLBs = map[string]map[string]int{}
	for _, arn := range sortedKeys(s.listeners) {
		l := s.listeners[arn]
		s.listenersByLB[l.LoadBalancerARN] = append(s.listenersByLB[l.LoadBalancerARN], arn)
		s.indexActions(l.LoadBalancerARN, l.DefaultActions, 1)
	}
	s.rulesByListener = map[string][]string{}
	for _, arn := range sortedKeys(s.rules) {
		r := s.rules[arn]
		if r.IsDefault { // the default rule comes first
			s.rulesByListener[r.ListenerARN] = append([]string{arn}, s.rulesByListener[r.ListenerARN]...)
		} else {
			s.rulesByListener[r.ListenerARN] = append(s.rulesByListener[r.ListenerARN], arn)
			s.indexActions(s.listeners[r.ListenerARN].LoadBalancerARN, r.Actions, 1)
		}
	}
}

// putENI stores e, replacing any ENI with its ID, and keeps the ENI indexes in step.
func (s *Store) putENI(e *ENI) {
	if old, ok := s.enis[e.ID]; ok {
		s.unindexENI(old)
	} else {
		s.eniOrder.add(e.ID)
	}
	s.enis[e.ID] = e
	s.indexENI(e)
}

func (s *Store) indexENI(e *ENI) {
	for _, ip := range e.PrivateIPs {
		if !slices.Contains(s.eniByIP[ip], e.ID) { // an ENI may list an IP twice
			s.eniByIP[ip] = append(s.eniByIP[ip], e.ID)
		}
	}
	for _, g := range e.SecurityGroupIDs {
		s.sgUsers[g]++
	}
	if e.InstanceID != "" {
		s.eniByInstance[e.InstanceID] = append(s.eniByInstance[e.InstanceID], e.ID)
	}
}

func (s *Store) unindexENI(e *ENI) {
	for _, ip := range e.PrivateIPs {
		ids := slices.DeleteFunc(s.eniByIP[ip], func(id string) bool { return id == e.ID })
		if len(ids) == 0 {
			delete(s.eniByIP, ip)
		} else {
			s.eniByIP[ip] = ids
		}
	}
	for _, g := range e.SecurityGroupIDs {
		if s.sgUsers[g]--; s.sgUsers[g] <= 0 {
			delete(s.sgUsers, g)
		}
	}
	if e.InstanceID != "" {
		if ids := slices.DeleteFunc(s.eniByInstance[e.InstanceID], func(id string) bool { return id == e.ID }); len(ids) == 0 {
			delete(s.eniByInstance, e.InstanceID)
		} else {
			s.eniByInstance[e.InstanceID] = ids
		}
	}
}

package objects

import (
	"time"

	"github.com/restartsim/restartsim/fakeaws"
)

// stateReads are one snapshot's reads of AWS state. What several kinds list from is read once, whichever
// of them the snapshot wants: load balancers with their listeners (listeners and rules hang off them), a
// listener's rules, hosted zones with their record sets.
type stateReads struct {
	src AWSState
	// now is the snapshot's time (a load balancer's state depends on it).
	now time.Time

	lbs     []lbListeners
	rulesOf map[string]listenerRules
	zones   []zoneSets
	// zoneIDs map a hosted zone's ID, and its name where only one zone has it, to its ID; nil until the
	// zones are read.
	zoneIDs            map[string]string
	lbsRead, zonesRead bool
}

// lbListeners is a load balancer whose listeners could be read.
type lbListeners struct {
	fakeaws.LoadBalancer
	listeners []fakeaws.Listener
}

type listenerRules struct {
	rules []fakeaws.ListenerRule
	ok    bool
}

// zoneSets is a hosted zone with its record sets; listed is false when they could not be read (the zone
// was deleted meanwhile), unique when no other zone has its name.
type zoneSets struct {
	fakeaws.HostedZone
	sets           []fakeaws.RecordSet
	listed, unique bool
}

func newStateReads(src AWSState, now time.Time) *stateReads {
	return &stateReads{src: src, now: now, rulesOf: map[string]listenerRules{}}
}

// loadBalancers are the load balancers with their listeners, leaving out those deleted meanwhile.
func (r *stateReads) loadBalancers() []lbListeners {
	if r.lbsRead {
		return r.lbs
	}
	r.lbsRead = true
	for _, lb := range r.src.LoadBalancers() {
		ls, err := r.src.Listeners(lb.ARN)
		if err != nil {
			continue // deleted meanwhile
		}
		r.lbs = append(r.lbs, lbListeners{LoadBalancer: lb, listeners: ls})
	}
	return r.lbs
}

// rules are a listener's rules; false when it was deleted meanwhile.
func (r *stateReads) rules(listenerARN string) ([]fakeaws.ListenerRule, bool) {
	got, read := r.rulesOf[listenerARN]
	if !read {
		rules, err := r.src.Rules(listenerARN)
		if err != nil {
			rules = nil
		}
		got = listenerRules{rules: rules, ok: err == nil}
		r.rulesOf[listenerARN] = got
	}
	return got.rules, got.ok
}

// hostedZones are the hosted zones with their record sets.
func (r *stateReads) hostedZones() []zoneSets {
	if r.zonesRead {
		return r.zones
	}
	r.zonesRead = true
	zones := r.src.HostedZones()
	names := map[string]int{}
	for _, z := range zones {
		names[z.Name]++
	}
	r.zoneIDs = make(map[string]string, 2*len(zones))
	for _, z := range zones {
		unique := names[z.Name] == 1
		r.zoneIDs[z.ID] = z.ID
		if unique {
			r.zoneIDs[z.Name] = z.ID
		}
		sets, err := r.src.RecordSets(z.ID)
		r.zones = append(r.zones, zoneSets{HostedZone: z, sets: sets, listed: err == nil, unique: unique})
	}
	return r.zones
}

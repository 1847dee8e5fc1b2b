package state

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Batch limits of ChangeResourceRecordSets: an UPSERT's ResourceRecord elements and characters count twice.
const (
	MaxBatchRecords = 1000
	MaxBatchChars   = 32000
)

// RecordSets returns up to max record sets of a zone in Route53's order, starting at the first set at or after
// (name, type, setID) (from the start when name is ""), and the first set left out (nil when none is).
func (s *Store) RecordSets(zoneID, name, typ, setID string, max int) ([]RecordSet, *RecordSet, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.r53.zones[zoneID]
	if !ok {
		return nil, nil, NoSuchHostedZone(zoneID)
	}
	i := 0
	if name != "" {
		i, _ = e.find(recordKey(CanonicalName(name), typ, setID))
	}
	end := len(e.sets)
	if max >= 0 && max < end-i {
		end = i + max
	}
	out := make([]RecordSet, 0, end-i)
	for _, se := range e.sets[i:end] {
		out = append(out, cloneRecordSet(se.set))
	}
	if end < len(e.sets) {
		next := cloneRecordSet(e.sets[end].set)
		return out, &next, nil
	}
	return out, nil, nil
}

// batch is a change batch being checked: the zone and the sets the batch's earlier changes wrote (nil:
// deleted), so that each change sees the ones before it, as in Route53 (a DELETE then a CREATE of one set
// replaces it).
type batch struct {
	zone    *zoneEntry
	overlay map[string]*RecordSet
	zones   map[string]*zoneEntry // the account's, where aliases point
}

func (b *batch) get(k string) *RecordSet {
	if v, ok := b.overlay[k]; ok {
		return v
	}
	if i, found := b.zone.find(k); found {
		return b.zone.sets[i].set
	}
	return nil
}

// setsAt are the sets whose keys start with prefix once the batch so far is applied, but for the set
// except (a key).
func (b *batch) setsAt(prefix, except string) []*RecordSet {
	var out []*RecordSet
	i, _ := b.zone.find(prefix)
	for ; i < len(b.zone.sets) && strings.HasPrefix(b.zone.sets[i].key, prefix); i++ {
		if _, written := b.overlay[b.zone.sets[i].key]; !written && b.zone.sets[i].key != except {
			out = append(out, b.zone.sets[i].set)
		}
	}
	for k, v := range b.overlay {
		if v != nil && k != except && strings.HasPrefix(k, prefix) {
			out = append(out, v)
		}
	}
	return out
}

// typesAt are the types of the sets named name once the batch so far is applied, but for the set except.
func (b *batch) typesAt(name, except string) map[string]bool {
	out := map[string]bool{}
	for _, r := range b.setsAt(nameKey(name)+"\x00\x00", except) {
		out[r.Type] = true
	}
	return out
}

// ChangeRecordSets applies a batch atomically: every change is checked against the zone as the changes before
// it leave it, and any refusal refuses the whole batch (*BatchError, or InvalidInput for a malformed change).
func (s *Store) ChangeRecordSets(zoneID, comment string, changes []RecordChange, now time.Time) (ChangeInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.r53.zones[zoneID]
	if !ok {
		return ChangeInfo{}, NoSuchHostedZone(zoneID)
	}
	for i := range changes {
		if err := ValidateChange(&changes[i]); err != nil {
			return ChangeInfo{}, err
		}
	}
	if msg := batchSize(changes); msg != "" {
		return ChangeInfo{}, &BatchError{Messages: []string{msg}}
	}
	b := &batch{zone: e, overlay: map[string]*RecordSet{}, zones: s.r53.zones}
	var msgs []string
	for _, c := range changes {
		msgs = append(msgs, b.apply(c)...)
	}
	if len(msgs) > 0 {
		return ChangeInfo{}, &BatchError{Messages: msgs}
	}
	n, bytes := b.growth()
	switch {
	case s.cfg.MaxRecordSetsPerZone > 0 && len(e.sets)+n > s.cfg.MaxRecordSetsPerZone:
		return ChangeInfo{}, &BatchError{Messages: []string{fmt.Sprintf("The hosted zone %s would have %d resource record sets; the limit is %d.", e.Name, len(e.sets)+n, s.cfg.MaxRecordSetsPerZone)}}
	case bytes > 0 && s.r53.bytes+bytes > MaxRecordBytes:
		return ChangeInfo{}, &BatchError{Messages: []string{fmt.Sprintf("Limits Exceeded: fakeaws keeps at most %d bytes of hosted zones, record sets and tags.", MaxRecordBytes)}}
	}
	for k, v := range b.overlay {
		if v == nil {
			e.remove(k)
		} else {
			e.put(v)
		}
	}
	s.r53.bytes += bytes
	return s.newChange(comment, now), nil
}

// growth is how many record sets and bytes (recordBytes) the batch adds to its zone, negative when it
// removes more.
func (b *batch) growth() (sets, bytes int) {
	for k, v := range b.overlay {
		if i, found := b.zone.find(k); found {
			sets--
			bytes -= recordBytes(b.zone.sets[i].set)
		}
		if v != nil {
			sets++
			bytes += recordBytes(v)
		}
	}
	return sets, bytes
}

// apply checks one change against the batch so far and records its effect; it returns Route53's messages
// when the change is refused.
func (b *batch) apply(c RecordChange) []string {
	r, zone := c.Set, b.zone.Name
	if !inZone(r.Name, zone) {
		return []string{fmt.Sprintf("RRSet with DNS name %s is not permitted in zone %s", r.Name, zone)}
	}
	k := recordKey(r.Name, r.Type, r.SetIdentifier)
	have := b.get(k)
	if c.Action == "DELETE" {
		switch {
		case have == nil:
			return []string{fmt.Sprintf("Tried to delete resource record set %s but it was not found", DescribeSet(r))}
		case !sameSet(have, &r):
			return []string{fmt.Sprintf("Tried to delete resource record set %s but the values provided do not match the current values", DescribeSet(r))}
		case r.Name == zone && r.Type == "SOA":
			return []string{"A HostedZone must contain exactly one SOA record."}
		case r.Name == zone && r.Type == "NS":
			return []string{"A HostedZone must contain at least one NS record for the zone itself."}
		}
		b.overlay[k] = nil
		return nil
	}
	if c.Action == "CREATE" && have != nil {
		return []string{fmt.Sprintf("Tried to create resource record set %s but it already exists", DescribeSet(r))}
	}
	if msg := recordValuesProblem(&r); msg != "" {
		return []string{msg}
	}
	others := b.typesAt(r.Name, k)
	switch {
	case r.Type == "CNAME" && r.Name == zone:
		return []string{fmt.Sprintf("RRSet of type CNAME with DNS name %s is not permitted at apex in zone %s", r.Name, zone)}
	case r.Type == "CNAME" && len(others) > 0 && !(len(others) == 1 && others["CNAME"]):
		return []string{fmt.Sprintf("RRSet of type CNAME with DNS name %s is not permitted as it conflicts with other records with the same DNS name in zone %s", r.Name, zone)}
	case r.Type != "CNAME" && others["CNAME"]:
		return []string{fmt.Sprintf("RRSet of type %s with DNS name %s is not permitted because a conflicting RRSet of type CNAME with the same DNS name already exists in zone %s", r.Type, r.Name, zone)}
	}
	if msg := b.routingConflict(&r, k); msg != "" {
		return []string{msg}
	}
	if msgs := b.aliasProblems(&r); len(msgs) > 0 {
		return msgs
	}
	set := cloneRecordSet(&r)
	b.overlay[k] = &set
	return nil
}

// sameSet reports whether a DELETE's set matches the stored one exactly (values in any order).
func sameSet(have, want *RecordSet) bool {
	a, b := cloneRecordSet(have), cloneRecordSet(want)
	slices.Sort(a.Values)
	slices.Sort(b.Values)
	eqInt := func(x, y *int64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqBool := func(x, y *bool) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	eqAlias := func(x, y *AliasTarget) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return slices.Equal(a.Values, b.Values) && eqInt(a.TTL, b.TTL) && eqInt(a.Weight, b.Weight) &&
		eqBool(a.MultiValueAnswer, b.MultiValueAnswer) && eqAlias(a.AliasTarget, b.AliasTarget) &&
		a.Region == b.Region && a.Failover == b.Failover && a.HealthCheckID == b.HealthCheckID
}

// batchSize returns Route53's message when a batch passes the ResourceRecord or character limit.
func batchSize(changes []RecordChange) string {
	records, chars := 0, 0
	for _, c := range changes {
		n, m := len(c.Set.Values), 0
		for _, v := range c.Set.Values {
			m += len(v)
		}
		if c.Action == "UPSERT" {
			n, m = 2*n, 2*m
		}
		records, chars = records+n, chars+m
	}
	switch {
	case records > MaxBatchRecords:
		return fmt.Sprintf("Number of records limit of %d exceeded.", MaxBatchRecords)
	case chars > MaxBatchChars:
		return fmt.Sprintf("Number of characters limit of %d exceeded.", MaxBatchChars)
	}
	return ""
}

// ZoneRecordSets returns every record set of a zone in Route53's order.
func (s *Store) ZoneRecordSets(zoneID string) ([]RecordSet, error) {
	sets, _, err := s.RecordSets(zoneID, "", "", "", int(^uint(0)>>1))
	return sets, err
}

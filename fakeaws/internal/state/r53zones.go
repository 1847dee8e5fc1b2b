package state

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// maxChanges bounds the change records kept for GetChange; older ones are forgotten (NoSuchChange), as AWS
// forgets changes after a while.
const maxChanges = 1 << 16

// r53State is the account's Route53: hosted zones with their record sets, and submitted changes.
type r53State struct {
	zones       map[string]*zoneEntry
	changes     map[string]ChangeInfo
	changeOrder []string // oldest first, to forget beyond maxChanges or MaxChangeBytes
	bytes       int      // zoneBytes of every zone and recordBytes of every record set
	changeBytes int      // changeBytes of every change kept
}

type zoneEntry struct {
	HostedZone
	sets []setEntry // sorted by key: ListResourceRecordSets' order
}

type setEntry struct {
	key string // recordKey
	set *RecordSet
}

func newR53State() r53State {
	return r53State{zones: map[string]*zoneEntry{}, changes: map[string]ChangeInfo{}}
}

func (r *r53State) clone() r53State {
	c := r53State{zones: make(map[string]*zoneEntry, len(r.zones)), changes: make(map[string]ChangeInfo, len(r.changes)),
		changeOrder: slices.Clone(r.changeOrder), bytes: r.bytes, changeBytes: r.changeBytes}
	for id, z := range r.zones {
		e := &zoneEntry{HostedZone: cloneZone(&z.HostedZone), sets: make([]setEntry, len(z.sets))}
		for i, s := range z.sets {
			rs := cloneRecordSet(s.set)
			e.sets[i] = setEntry{key: s.key, set: &rs}
		}
		c.zones[id] = e
	}
	for id, ch := range r.changes {
		c.changes[id] = ch
	}
	return c
}

// newR53ID is a Route53-style ID: prefix and upper-case letters and digits, 21 characters in all.
func (s *Store) newR53ID(prefix string) string {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	b := []byte(prefix)
	for len(b) < 21 {
		b = append(b, digits[s.rng.IntN(len(digits))])
	}
	return string(b)
}

// NoSuchHostedZone is Route53's error for an unknown zone ID.
func NoSuchHostedZone(id string) error {
	return query.Errorf("NoSuchHostedZone", "No hosted zone found with ID: %s", id)
}

// CreateHostedZone creates a zone with its SOA and NS record sets; a zone with VPCs is private.
func (s *Store) CreateHostedZone(z HostedZone, now time.Time) (HostedZone, ChangeInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := validZoneName(z.Name); err != nil {
		return HostedZone{}, ChangeInfo{}, err
	}
	switch {
	case z.CallerReference == "":
		return HostedZone{}, ChangeInfo{}, query.Errorf("InvalidInput", "CallerReference is required")
	case len(z.CallerReference) > MaxCallerRefChars:
		return HostedZone{}, ChangeInfo{}, TooLong("callerReference", MaxCallerRefChars)
	case len(z.Comment) > MaxCommentChars:
		return HostedZone{}, ChangeInfo{}, TooLong("hostedZoneConfig.comment", MaxCommentChars)
	}
	for _, e := range s.r53.zones {
		if e.CallerReference == z.CallerReference {
			return HostedZone{}, ChangeInfo{}, query.Errorf("HostedZoneAlreadyExists", "A hosted zone has already been created with the specified caller reference.")
		}
	}
	if s.cfg.MaxHostedZones > 0 && len(s.r53.zones) >= s.cfg.MaxHostedZones {
		return HostedZone{}, ChangeInfo{}, query.Errorf("TooManyHostedZones", "Limits Exceeded: MAX_HOSTED_ZONES_BY_OWNER - Cannot create more than %d hosted zones.", s.cfg.MaxHostedZones)
	}
	e := &zoneEntry{HostedZone: HostedZone{ID: s.newR53ID("Z"), Name: CanonicalName(z.Name), CallerReference: z.CallerReference,
		Comment: z.Comment, PrivateZone: len(z.VPCs) > 0, VPCs: slices.Clone(z.VPCs), CreatedAt: now}}
	ns := []string{"ns-0.awsdns-00.com.", "ns-512.awsdns-00.net.", "ns-1024.awsdns-00.org.", "ns-1536.awsdns-00.co.uk."}
	if !e.PrivateZone {
		ns = s.delegationSet()
		e.NameServers = slices.Clone(ns)
	}
	soaTTL, nsTTL := int64(900), int64(172800)
	sets := []*RecordSet{
		{Name: e.Name, Type: "SOA", TTL: &soaTTL, Values: []string{ns[0] + " awsdns-hostmaster.amazon.com. 1 7200 900 1209600 86400"}},
		{Name: e.Name, Type: "NS", TTL: &nsTTL, Values: ns},
	}
	need := zoneBytes(&e.HostedZone) + recordBytes(sets[0]) + recordBytes(sets[1])
	if s.r53.bytes+need > MaxRecordBytes {
		return HostedZone{}, ChangeInfo{}, query.Errorf("TooManyHostedZones", "Limits Exceeded: fakeaws keeps at most %d bytes of hosted zones, record sets and tags.", MaxRecordBytes)
	}
	for _, rs := range sets {
		e.put(rs)
	}
	s.r53.bytes += need
	s.r53.zones[e.ID] = e
	return e.view(), s.newChange(z.Comment, now), nil
}

// delegationSet is four name servers, one in each of Route53's top-level domains.
func (s *Store) delegationSet() []string {
	n := s.rng.IntN(512)
	tlds := []string{"com", "net", "org", "co.uk"}
	out := make([]string, len(tlds))
	for i, tld := range tlds {
		out[i] = fmt.Sprintf("ns-%d.awsdns-%02d.%s.", n+512*i, s.rng.IntN(64), tld)
	}
	return out
}

// newChange records a change submitted now.
func (s *Store) newChange(comment string, now time.Time) ChangeInfo {
	c := ChangeInfo{ID: s.newR53ID("C"), Status: ChangePending, SubmittedAt: now, Comment: comment}
	s.r53.changes[c.ID] = c
	s.r53.changeOrder = append(s.r53.changeOrder, c.ID)
	s.r53.changeBytes += changeBytes(c)
	for len(s.r53.changeOrder) > maxChanges || s.r53.changeBytes > MaxChangeBytes {
		old := s.r53.changeOrder[0]
		s.r53.changeBytes -= changeBytes(s.r53.changes[old])
		delete(s.r53.changes, old)
		s.r53.changeOrder = s.r53.changeOrder[1:]
	}
	return s.changeAt(c, now)
}

// changeAt is a change's status at now: INSYNC once the propagation delay has passed.
func (s *Store) changeAt(c ChangeInfo, now time.Time) ChangeInfo {
	c.Status = ChangePending
	if !now.Before(c.SubmittedAt.Add(s.cfg.Route53PropagationDelay)) {
		c.Status = ChangeInSync
	}
	return c
}

// Change returns a submitted change with its status at now.
func (s *Store) Change(id string, now time.Time) (ChangeInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.r53.changes[id]
	if !ok {
		return ChangeInfo{}, query.Errorf("NoSuchChange", "A change with the specified change ID does not exist.")
	}
	return s.changeAt(c, now), nil
}

// HostedZone returns one zone.
func (s *Store) HostedZone(id string) (HostedZone, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.r53.zones[id]
	if !ok {
		return HostedZone{}, NoSuchHostedZone(id)
	}
	return e.view(), nil
}

// DeleteHostedZone deletes a zone that holds only its SOA and apex NS record sets.
func (s *Store) DeleteHostedZone(id string, now time.Time) (ChangeInfo, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.r53.zones[id]
	if !ok {
		return ChangeInfo{}, NoSuchHostedZone(id)
	}
	for _, se := range e.sets {
		if se.set.Name != e.Name || (se.set.Type != "SOA" && se.set.Type != "NS") {
			return ChangeInfo{}, query.Errorf("HostedZoneNotEmpty", "The specified hosted zone contains non-required resource record sets and so cannot be deleted.")
		}
	}
	s.r53.bytes -= zoneBytes(&e.HostedZone)
	for _, se := range e.sets {
		s.r53.bytes -= recordBytes(se.set)
	}
	delete(s.r53.zones, id)
	return s.newChange("", now), nil
}

// HostedZones returns every zone, ordered by ID (ListHostedZones' order).
func (s *Store) HostedZones() []HostedZone {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]HostedZone, 0, len(s.r53.zones))
	for _, id := range sortedKeys(s.r53.zones) {
		out = append(out, s.r53.zones[id].view())
	}
	return out
}

// HostedZonesByName returns every zone ordered by name (labels from the root down), then ID
// (ListHostedZonesByName's order).
func (s *Store) HostedZonesByName() []HostedZone {
	zs := s.HostedZones()
	sort.SliceStable(zs, func(i, j int) bool { return nameKey(zs[i].Name) < nameKey(zs[j].Name) })
	return zs
}

// ChangeZoneTags adds and removes tags of a zone.
func (s *Store) ChangeZoneTags(id string, add []Tag, remove []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.r53.zones[id]
	if !ok {
		return NoSuchHostedZone(id)
	}
	tags := mergeTags(cloneTags(e.Tags), add)
	tags = slices.DeleteFunc(tags, func(t Tag) bool { return slices.Contains(remove, t.Key) })
	if err := s.tagLimit(len(tags)); err != nil {
		return query.Errorf("InvalidInput", "The number of tags exceeds the limit of %d", s.cfg.MaxTags)
	}
	grow := tagBytes(tags) - tagBytes(e.Tags)
	if grow > 0 && s.r53.bytes+grow > MaxRecordBytes {
		return query.Errorf("LimitsExceeded", "Limits Exceeded: fakeaws keeps at most %d bytes of hosted zones, record sets and tags.", MaxRecordBytes)
	}
	s.r53.bytes += grow
	e.Tags = tags
	return nil
}

func (e *zoneEntry) view() HostedZone {
	z := cloneZone(&e.HostedZone)
	z.RecordSetCount = len(e.sets)
	return z
}

// put inserts or replaces a record set in key order.
func (e *zoneEntry) put(r *RecordSet) {
	k := recordKey(r.Name, r.Type, r.SetIdentifier)
	i, found := slices.BinarySearchFunc(e.sets, k, func(se setEntry, k string) int { return strings.Compare(se.key, k) })
	if found {
		e.sets[i].set = r
		return
	}
	e.sets = slices.Insert(e.sets, i, setEntry{key: k, set: r})
}

// remove deletes a record set by key.
func (e *zoneEntry) remove(k string) {
	if i, found := e.find(k); found {
		e.sets = slices.Delete(e.sets, i, i+1)
	}
}

func (e *zoneEntry) find(k string) (int, bool) {
	return slices.BinarySearchFunc(e.sets, k, func(se setEntry, k string) int { return strings.Compare(se.key, k) })
}

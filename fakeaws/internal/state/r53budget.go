package state

// Route53's memory budget. AWS's quotas (500 zones of 10,000 record sets, values of 4,000 characters) allow
// gigabytes, so fakeaws counts the bytes its Route53 state keeps and refuses past the budget with Route53's
// limit errors, whatever the mix of requests: hosted zones, record sets and tags share MaxRecordBytes; the
// changes kept for GetChange take at most MaxChangeBytes, the oldest forgotten first (NoSuchChange), as AWS
// forgets changes after a while. The counts include Go's overheads (struct, key, slice and string headers),
// so that the heap the state holds stays within a small multiple of MaxRoute53Bytes.
const (
	MaxRoute53Bytes = 32 << 20
	MaxChangeBytes  = 4 << 20
	MaxRecordBytes  = MaxRoute53Bytes - MaxChangeBytes
)

// Per-entity overheads counted besides the strings: a zoneEntry, a setEntry with its RecordSet, key and
// pointers, a ChangeInfo in the map and the order list, a Tag.
const (
	zoneOverhead   = 1024
	setOverhead    = 256
	valueOverhead  = 16
	changeOverhead = 160
	tagOverhead    = 48
)

// recordBytes is what a record set counts against MaxRecordBytes: its name twice (it is in the set's key
// too), its values, alias and routing fields.
func recordBytes(r *RecordSet) int {
	n := setOverhead + 2*len(r.Name) + len(r.Type) + len(r.SetIdentifier) + len(r.Region) + len(r.Failover) + len(r.HealthCheckID)
	for _, v := range r.Values {
		n += valueOverhead + len(v)
	}
	if a := r.AliasTarget; a != nil {
		n += len(a.DNSName) + len(a.HostedZoneID)
	}
	return n
}

// zoneBytes is what a zone itself counts against MaxRecordBytes (its record sets count apart).
func zoneBytes(z *HostedZone) int {
	n := zoneOverhead + len(z.ID) + len(z.Name) + len(z.CallerReference) + len(z.Comment) + tagBytes(z.Tags)
	for _, ns := range z.NameServers {
		n += valueOverhead + len(ns)
	}
	for _, v := range z.VPCs {
		n += valueOverhead + len(v.ID) + len(v.Region)
	}
	return n
}

func tagBytes(tags []Tag) int {
	n := 0
	for _, t := range tags {
		n += tagOverhead + len(t.Key) + len(t.Value)
	}
	return n
}

func changeBytes(c ChangeInfo) int { return changeOverhead + 2*len(c.ID) + len(c.Comment) }

// Route53Bytes is what the account's Route53 state counts against MaxRoute53Bytes.
func (s *Store) Route53Bytes() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.r53.bytes + s.r53.changeBytes
}

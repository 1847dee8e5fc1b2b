package fakeaws

import (
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Route53 state types (aliases of the store's).
type (
	// HostedZone is a Route53 hosted zone; ID has no "/hostedzone/" prefix and Name is canonical (lower case,
	// trailing dot).
	HostedZone = state.HostedZone
	// ZoneVPC is a VPC associated with a private hosted zone.
	ZoneVPC = state.ZoneVPC
	// RecordSet is a Route53 resource record set: values with a TTL, or an alias.
	RecordSet = state.RecordSet
	// AliasTarget is where an alias record set points.
	AliasTarget = state.AliasTarget
	// ChangeInfo is a submitted Route53 change; Status is ChangePending or ChangeInSync.
	ChangeInfo = state.ChangeInfo
)

// MaxRoute53Bytes bounds what the account's Route53 state keeps (zones, record sets, tags, the changes kept
// for GetChange, comments), counted with Go's overheads; past it Route53 answers its limit errors.
const MaxRoute53Bytes = state.MaxRoute53Bytes

// Route53Bytes is what the Route53 state keeps now, counted as against MaxRoute53Bytes.
func (s *Server) Route53Bytes() int { return s.st.Route53Bytes() }

// Route53 change statuses.
const (
	ChangePending = state.ChangePending
	ChangeInSync  = state.ChangeInSync
)

// CanonicalDNSName is a name as Route53 stores and returns it: lower case, a trailing dot, "*" as \052.
func CanonicalDNSName(name string) string { return state.CanonicalName(name) }

// HostedZones returns every hosted zone, ordered by ID.
func (s *Server) HostedZones() []HostedZone { return s.st.HostedZones() }

// HostedZone returns one hosted zone by ID (with or without the "/hostedzone/" prefix).
func (s *Server) HostedZone(id string) (HostedZone, error) { return s.st.HostedZone(trimZoneID(id)) }

// RecordSets returns every record set of a hosted zone in ListResourceRecordSets' order.
func (s *Server) RecordSets(zoneID string) ([]RecordSet, error) {
	return s.st.ZoneRecordSets(trimZoneID(zoneID))
}

// Change returns a Route53 change with its status now (scenario time).
func (s *Server) Change(id string) (ChangeInfo, error) {
	return s.st.Change(strings.TrimPrefix(id, "/change/"), s.clock.Now())
}

func trimZoneID(id string) string { return strings.TrimPrefix(id, "/hostedzone/") }

// hostedZoneState is a zone with its record sets, as the admin state dump shows it.
type hostedZoneState struct {
	HostedZone
	RecordSets []RecordSet `json:"recordSets"`
}

func (s *Server) hostedZoneTree() []hostedZoneState {
	zs := s.HostedZones()
	out := make([]hostedZoneState, 0, len(zs))
	for _, z := range zs {
		sets, _ := s.RecordSets(z.ID) // a zone deleted meanwhile shows without record sets
		out = append(out, hostedZoneState{HostedZone: z, RecordSets: sets})
	}
	return out
}

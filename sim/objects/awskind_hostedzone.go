package objects

import (
	"reflect"
	"strings"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSHostedZone is a Route53 hosted zone, found by ID ("/hostedzone/" prefix allowed) or domain.
const AWSHostedZone = "route53HostedZone"

var hostedZoneKind = hostedZones{kindInfo{kind: AWSHostedZone, viewType: reflect.TypeFor[hostedZoneView](), ways: waysOf("id", "name")}}

type hostedZones struct{ kindInfo }

// hostedZoneView is a hosted zone's `aws` value.
type hostedZoneView struct {
	fakeaws.HostedZone `json:",inline"`
	// RecordSets are the zone's record sets in Route53's order.
	RecordSets []fakeaws.RecordSet `json:"recordSets"`
}

func (hostedZones) keys(way string, v AWSRef) []resourceKey {
	if way == "id" {
		return []resourceKey{byKey("id", strings.TrimPrefix(v.ID, "/hostedzone/"))}
	}
	return []resourceKey{byKey("name", fakeaws.CanonicalDNSName(v.Name))}
}

// callName is the zone's ID: Route53 calls name their zone by it.
func (hostedZones) callName(s *Snapshot, k resourceKey) string {
	if k.by == "id" {
		return fakeaws.HostedZoneResource(k.value)
	}
	if zone := s.zoneID(k.value); zone != "" {
		return fakeaws.HostedZoneResource(zone)
	}
	return ""
}

// list indexes every zone by ID and, where one zone has it (a public and a private zone may share one),
// by name.
func (hostedZones) list(r *stateReads, add addFunc) error {
	for _, z := range r.hostedZones() {
		if !z.listed {
			continue
		}
		keys := []resourceKey{byKey("id", z.ID)}
		if z.unique {
			keys = append(keys, byKey("name", z.Name))
		}
		add(&hostedZoneView{HostedZone: z.HostedZone, RecordSets: z.sets}, keys...)
	}
	return nil
}

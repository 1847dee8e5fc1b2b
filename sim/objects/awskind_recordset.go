package objects

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws"
)

// AWSRecordSet is a Route53 record set, found by its zone (ID or domain), name and type, with its set
// identifier when routed.
const AWSRecordSet = "route53RecordSet"

var recordSetKind = recordSets{kindInfo{kind: AWSRecordSet, viewType: reflect.TypeFor[recordSetView](),
	ways: refWays{ways: []refWay{{"zone", "name", "type"}}, optional: []string{"setIdentifier"}}}}

type recordSets struct{ kindInfo }

// recordSetView is a record set's `aws` value.
type recordSetView struct {
	fakeaws.RecordSet `json:",inline"`
	// ZoneID and ZoneName are the record set's hosted zone.
	ZoneID   string `json:"zoneId"`
	ZoneName string `json:"zoneName"`
}

// keys try the zone as an ID, then as a domain.
func (recordSets) keys(_ string, v AWSRef) []resourceKey {
	name, typ := fakeaws.CanonicalDNSName(v.Name), strings.ToUpper(v.Type)
	return []resourceKey{
		recordKey(strings.TrimPrefix(v.Zone, "/hostedzone/"), name, typ, v.SetIdentifier),
		recordKey(fakeaws.CanonicalDNSName(v.Zone), name, typ, v.SetIdentifier),
	}
}

func recordKey(zone, name, typ, setID string) resourceKey {
	return resourceKey{by: "zone", value: zone, name: name, typ: typ, setID: setID}
}

func (recordSets) callName(s *Snapshot, k resourceKey) string {
	if zone := s.zoneID(k.value); zone != "" {
		return fakeaws.RecordSetResource(zone, k.name, k.typ, k.setID)
	}
	return ""
}

func (recordSets) checkLiteral(field, literal string) string {
	if field == "type" && !slices.Contains(fakeaws.Route53RecordTypes(), literal) {
		return fmt.Sprintf("%q is not a Route53 record type (%s)", literal, strings.Join(fakeaws.Route53RecordTypes(), ", "))
	}
	return ""
}

// list indexes every record set by its zone's ID and, where one zone has it, its zone's name.
func (recordSets) list(r *stateReads, add addFunc) error {
	for _, z := range r.hostedZones() {
		if !z.listed {
			continue
		}
		for _, rs := range z.sets {
			keys := []resourceKey{recordKey(z.ID, rs.Name, rs.Type, rs.SetIdentifier)}
			if z.unique {
				keys = append(keys, recordKey(z.Name, rs.Name, rs.Type, rs.SetIdentifier))
			}
			add(&recordSetView{RecordSet: rs, ZoneID: z.ID, ZoneName: z.Name}, keys...)
		}
	}
	return nil
}

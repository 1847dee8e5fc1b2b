package objects

import (
	"strings"

	"github.com/restartsim/restartsim/fakeaws"
)

// isELBv2 reports whether kind is an ELBv2 resource, which calls name by ARN.
func isELBv2(kind string) bool {
	switch kind {
	case AWSTargetGroup, AWSLoadBalancer, AWSListener, AWSRule:
		return true
	}
	return false
}

// resourceIDOf is the identity (as fakeaws.Call.Resources names it) of the resource of kind that keys (an
// awsRef's) find, from the first key that resolves; "" when none does. An ELBv2 resource is its ARN; a
// resource given by ID (a bucket by name) needs nothing from s; a zone given by name, and a security group
// given by name, are looked up in s.
func (s *Snapshot) resourceIDOf(kind string, keys []string) string {
	for _, k := range keys {
		if id := s.keyResourceID(kind, k); id != "" {
			return id
		}
	}
	return ""
}

func (s *Snapshot) keyResourceID(kind, key string) string {
	parts := strings.Split(key, "\x00")
	switch {
	case kind == AWSRecordSet && len(parts) == 5 && parts[0] == "record":
		if zone := s.zoneID(parts[1]); zone != "" {
			return fakeaws.RecordSetResource(zone, parts[2], parts[3], parts[4])
		}
	case len(parts) != 2:
	case kind == AWSHostedZone && parts[0] == "id":
		return fakeaws.HostedZoneResource(parts[1])
	case kind == AWSHostedZone && parts[0] == "name":
		if zone := s.zoneID(parts[1]); zone != "" {
			return fakeaws.HostedZoneResource(zone)
		}
	case kind == AWSSecurityGroup && parts[0] == "id":
		return fakeaws.SecurityGroupResource(parts[1])
	case kind == AWSSecurityGroup && parts[0] == "name":
		if e := s.lookup(kind, key); e != nil {
			return fakeaws.SecurityGroupResource(e.view.(*securityGroupView).ID)
		}
	case kind == AWSS3Bucket && parts[0] == "name":
		return fakeaws.S3BucketResource(parts[1])
	}
	return ""
}

// zoneID is the ID of the hosted zone known by zone (its ID, or its canonical name when only one zone has
// it) in s; "" when s holds no such zone.
func (s *Snapshot) zoneID(zone string) string {
	if s == nil {
		return ""
	}
	return s.zoneIDs[zone]
}

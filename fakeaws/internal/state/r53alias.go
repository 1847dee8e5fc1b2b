package state

import (
	"fmt"
	"slices"
	"strings"
)

// awsServiceZones are hosted zones of AWS services an alias may point to (ELB's per region, CloudFront's),
// with the domain their names lie in. fakeaws does not check that such a target exists, and takes a zone
// it does not list, outside the account, as a service's when the name lies in a service's domain (ELB's
// zones of other regions, S3 websites, API Gateway).
var awsServiceZones = func() map[string]string {
	out := map[string]string{"Z2FDTNDATAQYW2": "cloudfront.net."}
	for _, z := range hostedZones {
		out[z[0]], out[z[1]] = "amazonaws.com.", "amazonaws.com."
	}
	return out
}()

// routingPolicy names a set's routing policy, "" for simple routing.
func routingPolicy(r *RecordSet) string {
	switch {
	case r.Weight != nil:
		return "weighted"
	case r.Region != "":
		return "latency"
	case r.Failover != "":
		return "failover"
	case r.MultiValueAnswer != nil:
		return "multivalue"
	}
	return ""
}

// routingConflict returns Route53's message when r would sit beside sets of its name and type with another
// routing policy (a simple set beside weighted ones, say), "" when it may.
func (b *batch) routingConflict(r *RecordSet, except string) string {
	for _, o := range b.setsAt(recordPrefix(r.Name, r.Type), except) {
		if routingPolicy(o) != routingPolicy(r) || r.SetIdentifier == "" {
			return fmt.Sprintf("RRSet with DNS name %s, type %s cannot be created as other RRSets exist with the same name and type.", r.Name, r.Type)
		}
	}
	return ""
}

func recordPrefix(name, typ string) string { return nameKey(name) + "\x00\x00" + typ + "\x00" }

// aliasProblems returns Route53's messages for an alias whose target cannot be resolved: a zone that does
// not exist, a name outside the target zone, no set of that name and type there, or the alias itself.
func (b *batch) aliasProblems(r *RecordSet) []string {
	a := r.AliasTarget
	if a == nil {
		return nil
	}
	head := fmt.Sprintf("Tried to create an alias that targets %s, type %s in zone %s, but ", a.DNSName, r.Type, a.HostedZoneID)
	outside, notFound := head+"the alias target name does not lie within the target zone", head+"that target was not found"
	if domain, ok := awsServiceZones[a.HostedZoneID]; ok {
		if !inZone(a.DNSName, domain) {
			return []string{outside}
		}
		return nil
	}
	z, ok := b.zones[a.HostedZoneID]
	switch {
	case !ok && (inZone(a.DNSName, "amazonaws.com.") || inZone(a.DNSName, "cloudfront.net.")):
		return nil
	case !ok:
		return []string{outside, notFound}
	case !inZone(a.DNSName, z.Name):
		return []string{outside}
	case z == b.zone && a.DNSName == r.Name:
		return []string{notFound, fmt.Sprintf("RRSet of type %s with DNS name %s is not permitted as it creates a CNAME or alias loop in the zone.", r.Type, r.Name)}
	}
	prefix := recordPrefix(a.DNSName, r.Type)
	if z == b.zone {
		if len(b.setsAt(prefix, "")) == 0 {
			return []string{notFound}
		}
		return nil
	}
	i, _ := z.find(prefix)
	if !slices.ContainsFunc(z.sets[i:min(i+1, len(z.sets))], func(se setEntry) bool { return strings.HasPrefix(se.key, prefix) }) {
		return []string{notFound}
	}
	return nil
}

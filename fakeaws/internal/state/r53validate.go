package state

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// ValidateChange checks what makes a change malformed (Route53's InvalidInput, which refuses the request
// before the batch is looked at) and canonicalizes its names.
func ValidateChange(c *RecordChange) error {
	r := &c.Set
	if !slices.Contains([]string{"CREATE", "DELETE", "UPSERT"}, c.Action) {
		return query.Errorf("InvalidInput", "Invalid request: Expected Action to be one of [CREATE, DELETE, UPSERT], but found '%s'", c.Action)
	}
	if !slices.Contains(RecordTypes, r.Type) {
		return query.Errorf("InvalidInput", "Invalid request: Expected Type to be one of %v, but found '%s'", RecordTypes, r.Type)
	}
	if r.Name == "" || len(r.Name) > 1024 || strings.Contains(strings.TrimSuffix(r.Name, "."), "..") {
		return query.Errorf("InvalidInput", "Invalid request: '%s' is not a valid DNS name", r.Name)
	}
	if err := validFields(r); err != nil {
		return err
	}
	if f := NameFault(r.Name); f != "" {
		return &BatchError{Messages: []string{f}}
	}
	r.Name = CanonicalName(r.Name)
	hasValues := r.TTL != nil && len(r.Values) > 0
	if (r.AliasTarget != nil) == hasValues || r.AliasTarget != nil && (r.TTL != nil || len(r.Values) > 0) {
		sid := "null"
		if r.SetIdentifier != "" {
			sid = r.SetIdentifier
		}
		return query.Errorf("InvalidInput", "Invalid request: Expected exactly one of [AliasTarget, all of [TTL, and ResourceRecords], or TrafficPolicyInstanceId], but found none in Change with [Action=%s, Name=%s, Type=%s, SetIdentifier=%s]", c.Action, r.Name, r.Type, sid)
	}
	if r.AliasTarget != nil {
		r.AliasTarget.DNSName = CanonicalName(r.AliasTarget.DNSName)
		if r.AliasTarget.HostedZoneID == "" {
			return query.Errorf("InvalidInput", "Invalid request: AliasTarget of %s needs a HostedZoneId", DescribeSet(*r))
		}
	}
	return validateRouting(r)
}

// validateRouting checks the routing policy: a set identifier comes with exactly one policy and back.
func validateRouting(r *RecordSet) error {
	policies := 0
	for _, set := range []bool{r.Weight != nil, r.Region != "", r.Failover != "", r.MultiValueAnswer != nil} {
		if set {
			policies++
		}
	}
	switch {
	case r.SetIdentifier == "" && policies > 0:
		return query.Errorf("InvalidInput", "Invalid request: a routing policy of %s needs a SetIdentifier", DescribeSet(*r))
	case r.SetIdentifier != "" && policies != 1:
		return query.Errorf("InvalidInput", "Invalid request: %s has a SetIdentifier and needs exactly one routing policy", DescribeSet(*r))
	case r.Weight != nil && (*r.Weight < 0 || *r.Weight > 255):
		return query.Errorf("InvalidInput", "Invalid request: Weight must be between 0 and 255")
	case r.TTL != nil && (*r.TTL < 0 || *r.TTL > 2147483647):
		return query.Errorf("InvalidInput", "Invalid request: TTL must be between 0 and 2147483647")
	case r.Failover != "" && r.Failover != "PRIMARY" && r.Failover != "SECONDARY":
		return query.Errorf("InvalidInput", "Invalid request: Failover must be PRIMARY or SECONDARY")
	}
	return nil
}

// recordValuesProblem returns Route53's message for a value its type does not allow, "" when all are fine.
func recordValuesProblem(r *RecordSet) string {
	bad := func(problem, v string) string {
		return fmt.Sprintf("Invalid Resource Record: 'FATAL problem: %s encountered with '%s''", problem, v)
	}
	if r.Type == "CNAME" && len(r.Values) > 1 {
		return fmt.Sprintf("RRSet of type CNAME with DNS name %s contains more than one value.", r.Name)
	}
	for _, v := range r.Values {
		switch r.Type {
		case "A":
			if a, err := netip.ParseAddr(v); err != nil || !a.Is4() {
				return bad("ARRDATAIllegalIPv4Address (Value is not a valid IPv4 address)", v)
			}
		case "AAAA":
			if a, err := netip.ParseAddr(v); err != nil || !a.Is6() || a.Is4In6() && strings.Contains(v, ".") {
				return bad("AAAARRDATAIllegalIPv6Address (Value is not a valid IPv6 address)", v)
			}
		case "TXT", "SPF":
			if p := charStringProblem(v); p != "" {
				return bad(p, v)
			}
		case "MX":
			if p := mxProblem(v); p != "" {
				return bad(p, v)
			}
		case "CNAME", "NS", "PTR":
			if strings.TrimSpace(v) == "" || strings.ContainsAny(v, " \t") {
				return bad("DomainLabelEmpty (Domain label is empty)", v)
			}
		}
	}
	return ""
}

package state

import (
	"slices"
	"time"
)

// Route53 record types fakeaws accepts (what external-dns and DNS controllers write, and AWS's other simple
// types).
var RecordTypes = []string{"A", "AAAA", "CAA", "CNAME", "DS", "MX", "NAPTR", "NS", "PTR", "SOA", "SPF", "SRV", "TXT"}

// Change statuses: a change is PENDING until it has propagated to every Route53 DNS server.
const (
	ChangePending = "PENDING"
	ChangeInSync  = "INSYNC"
)

// HostedZone is a Route53 hosted zone. ID has no "/hostedzone/" prefix; Name is canonical (lower case, a
// trailing dot, special characters escaped as \ooo, as Route53 returns names).
type HostedZone struct {
	ID              string    `json:"id"`
	Name            string    `json:"name"`
	CallerReference string    `json:"callerReference"`
	Comment         string    `json:"comment,omitempty"`
	PrivateZone     bool      `json:"privateZone"`
	VPCs            []ZoneVPC `json:"vpcs,omitempty"`
	// NameServers are the delegation set of a public zone (a private zone has none).
	NameServers    []string  `json:"nameServers,omitempty"`
	Tags           []Tag     `json:"tags,omitempty"`
	RecordSetCount int       `json:"recordSetCount"`
	CreatedAt      time.Time `json:"createdAt"`
}

// ZoneVPC is a VPC associated with a private hosted zone.
type ZoneVPC struct {
	Region string `json:"region"`
	ID     string `json:"id"`
}

// RecordSet is a Route53 resource record set: values with a TTL, or an alias. Name is canonical.
type RecordSet struct {
	Name          string `json:"name"`
	Type          string `json:"type"`
	SetIdentifier string `json:"setIdentifier,omitempty"`
	Weight        *int64 `json:"weight,omitempty"`
	Region        string `json:"region,omitempty"`
	Failover      string `json:"failover,omitempty"`
	// MultiValueAnswer is set for a multivalue answer record set.
	MultiValueAnswer *bool        `json:"multiValueAnswer,omitempty"`
	TTL              *int64       `json:"ttl,omitempty"`
	Values           []string     `json:"values,omitempty"`
	AliasTarget      *AliasTarget `json:"aliasTarget,omitempty"`
	HealthCheckID    string       `json:"healthCheckId,omitempty"`
}

// AliasTarget is where an alias record set points.
type AliasTarget struct {
	HostedZoneID         string `json:"hostedZoneId"`
	DNSName              string `json:"dnsName"`
	EvaluateTargetHealth bool   `json:"evaluateTargetHealth"`
}

// ChangeInfo is a submitted change. ID has no "/change/" prefix.
type ChangeInfo struct {
	ID          string    `json:"id"`
	Status      string    `json:"status"`
	SubmittedAt time.Time `json:"submittedAt"`
	Comment     string    `json:"comment,omitempty"`
}

// RecordChange is one change of a ChangeResourceRecordSets batch: Action CREATE, DELETE or UPSERT.
type RecordChange struct {
	Action string
	Set    RecordSet
}

// BatchError is Route53's InvalidChangeBatch: every reason the batch was refused.
type BatchError struct{ Messages []string }

func (e *BatchError) Error() string { return "InvalidChangeBatch: " + bracketed(e.Messages) }

func bracketed(msgs []string) string {
	out := "["
	for i, m := range msgs {
		if i > 0 {
			out += ", "
		}
		out += m
	}
	return out + "]"
}

func cloneRecordSet(r *RecordSet) RecordSet {
	c := *r
	c.Values = slices.Clone(r.Values)
	if r.Weight != nil {
		w := *r.Weight
		c.Weight = &w
	}
	if r.TTL != nil {
		t := *r.TTL
		c.TTL = &t
	}
	if r.MultiValueAnswer != nil {
		m := *r.MultiValueAnswer
		c.MultiValueAnswer = &m
	}
	if r.AliasTarget != nil {
		a := *r.AliasTarget
		c.AliasTarget = &a
	}
	return c
}

func cloneZone(z *HostedZone) HostedZone {
	c := *z
	c.VPCs = slices.Clone(z.VPCs)
	c.NameServers = slices.Clone(z.NameServers)
	c.Tags = cloneTags(z.Tags)
	return c
}

package fakeaws

import (
	"net/url"
	"strings"
)

// RecordSetChange is one change of a ChangeResourceRecordSets batch as the recorder keeps it: the set's
// identity (Name canonical, as Route53 stores it), not its values.
type RecordSetChange struct {
	Action        string `json:"action"` // CREATE, DELETE or UPSERT
	Name          string `json:"name"`
	Type          string `json:"type"`
	SetIdentifier string `json:"setIdentifier,omitempty"`
}

// MaxRecordedSets bounds the record sets one recorded call keeps: Route53's limit of records in a batch,
// which an ordinary batch stays far below.
const MaxRecordedSets = 1000

// Resource identities, as Call.Resources gives them and as a scenario's objects name their resources: an
// ELBv2 resource is its ARN; the others have no ARN in the calls that change them, so they are named by
// the IDs those calls carry.

// HostedZoneResource is the identity of a Route53 hosted zone by ID (with or without "/hostedzone/").
func HostedZoneResource(zoneID string) string { return "route53:hostedzone/" + trimZoneID(zoneID) }

// RecordSetResource is the identity of a Route53 record set: its zone's ID, its name (canonicalized here),
// type and set identifier ("" for a simple record set).
func RecordSetResource(zoneID, name, typ, setIdentifier string) string {
	id := HostedZoneResource(zoneID) + "/rrset/" + strings.ToUpper(typ) + "/" + url.PathEscape(CanonicalDNSName(name))
	if setIdentifier != "" {
		id += "/" + url.PathEscape(setIdentifier)
	}
	return id
}

// SecurityGroupResource is the identity of an EC2 security group by ID.
func SecurityGroupResource(groupID string) string { return "ec2:security-group/" + groupID }

// S3BucketResource is the identity of an S3 bucket by name.
func S3BucketResource(bucket string) string { return "s3:bucket/" + bucket }

// Resources are the identities of the resources the call names: its ELBv2 target group, load balancer,
// listener and rule ARNs, its hosted zone and the record sets it changed, its security group and its S3
// bucket, where set.
func (c *Call) Resources() []string {
	var out []string
	for _, arn := range []string{c.TargetGroupARN, c.LoadBalancerARN, c.ListenerARN, c.RuleARN} {
		if arn != "" {
			out = append(out, arn)
		}
	}
	if c.HostedZoneID != "" {
		out = append(out, HostedZoneResource(c.HostedZoneID))
		for _, rs := range c.RecordSets {
			out = append(out, RecordSetResource(c.HostedZoneID, rs.Name, rs.Type, rs.SetIdentifier))
		}
	}
	if c.SecurityGroupID != "" {
		out = append(out, SecurityGroupResource(c.SecurityGroupID))
	}
	if c.S3Bucket != "" {
		out = append(out, S3BucketResource(c.S3Bucket))
	}
	return out
}

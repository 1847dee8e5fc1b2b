package objects

import "encoding/json"

// Group is one named fleet of objects of one kind, made from a template (scenario field fleet.objects[]).
type Group struct {
	// Name names the group in After, ref and patches: a DNS label, unique among groups.
	Name string `json:"name"`
	// Count is how many objects the group has, 1 to MaxCount.
	Count int `json:"count"`
	// Template is a whole object (apiVersion, kind, metadata.name, spec...); every string value may hold Go
	// text/template actions (see the package documentation). metadata.namespace is the harness's to set.
	Template json.RawMessage `json:"template"`
	// After names the groups whose objects must all be ready before this group is created (a Listener
	// after its LoadBalancers).
	After []string `json:"after,omitempty"`
	// Ready is a CEL expression (bool) over `object` and `aws`: the object is ready, e.g. its
	// ACK.ResourceSynced condition is True. Empty: ready once it exists.
	Ready string `json:"ready,omitempty"`
	// AWS says how one object maps to one AWS resource, the `aws` variable of the group's expressions.
	// Nil: `aws` is always null.
	AWS *AWSRef `json:"aws,omitempty"`
	// Invariant is a CEL expression (bool) over `object` and `aws` that must hold in steady state, e.g.
	// aws != null && aws.healthCheck.path == object.spec.healthCheckPath. Empty: none.
	Invariant string `json:"invariant,omitempty"`
}

// AWSRef finds the AWS resource behind an object. Every field but Kind is a CEL expression (string) over
// `object`; which fields a kind takes is in refWays: target groups and load balancers by ARN or Name,
// listeners and rules by ARN, hosted zones and security groups by ID or Name, S3 buckets by Name, record
// sets by Zone, Name and Type (and SetIdentifier for a weighted or other routed set).
type AWSRef struct {
	// Kind is the AWS resource kind (AWSKinds).
	Kind string `json:"kind"`
	// ARN is the resource's ARN, e.g. object.status.ackResourceMetadata.arn; it may follow a reference
	// (ref, owners, selected) to another object's.
	ARN string `json:"arn,omitempty"`
	// Name is the resource's AWS name: a target group's, load balancer's, security group's or S3 bucket's
	// name, a hosted zone's domain name, or a record set's DNS name.
	Name string `json:"name,omitempty"`
	// ID is a hosted zone's ID (Z..., with or without "/hostedzone/") or a security group's (sg-...).
	ID string `json:"id,omitempty"`
	// Zone is a record set's hosted zone: its ID or its domain name.
	Zone string `json:"zone,omitempty"`
	// Type is a record set's type, e.g. "A" or "TXT".
	Type string `json:"type,omitempty"`
	// SetIdentifier is a routed record set's identifier (weighted, failover...). Default: none.
	SetIdentifier string `json:"setIdentifier,omitempty"`
}

// Patch is a churn step's change to chosen objects of a group (scenario timeline kind: patch).
type Patch struct {
	// Group names the group whose objects are patched.
	Group string `json:"group"`
	// Merge is a JSON merge patch; its string values may hold template actions, with .Seq the change's
	// sequence number besides the template data of the group.
	Merge json.RawMessage `json:"merge"`
	// Applied is a CEL expression (bool) over `object` (the object as the harness patched it, i.e. the desired
	// state) and `aws`: AWS shows the change.
	Applied string `json:"applied"`
	// Mutations are the AWS operations that apply the change (e.g. ModifyTargetGroup); the first successful
	// one naming the object's resource (its ARN; for Route53, EC2 and S3 kinds, its ID) is the change's first
	// meaningful mutation.
	Mutations []string `json:"mutations,omitempty"`
}

// AWS resource kinds an AWSRef may name.
const (
	AWSTargetGroup   = "targetGroup"
	AWSLoadBalancer  = "loadBalancer"
	AWSListener      = "listener"
	AWSRule          = "rule"
	AWSHostedZone    = "route53HostedZone"
	AWSRecordSet     = "route53RecordSet"
	AWSSecurityGroup = "securityGroup"
	AWSS3Bucket      = "s3Bucket"
)

// AWSKinds lists the AWS resource kinds, for validation and messages.
var AWSKinds = []string{AWSListener, AWSLoadBalancer, AWSHostedZone, AWSRecordSet, AWSRule, AWSS3Bucket, AWSSecurityGroup, AWSTargetGroup}

// MaxCount bounds Group.Count, so that a typo cannot ask for millions of objects.
const MaxCount = 100000

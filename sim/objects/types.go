package objects

import "encoding/json"

// Group is a named group of Kubernetes objects of any kind (custom resources included), made from
// one template, which the controller under test owns: e.g. the TargetGroups of the ACK ELBv2
// controller. A restart's changes to them are patches, creates and deletes (churn kinds patch,
// create, delete); whether AWS shows a change, and whether an object is ready, are CEL conditions
// over the object and its AWS resource, which may follow references to the groups' other objects
// (ref, owners, selected). A scenario's fleet.objects[] decodes into it.
type Group struct {
	// Name names the group in churn steps and results; a DNS label, unique among the groups.
	Name string `json:"name"`
	// Count is the number of objects. Required.
	Count int `json:"count"`
	// Template is the whole object (apiVersion, kind, metadata.name, spec, ...). Every string value
	// is a Go template over {{.Index}} {{.Group}} {{.Namespace}} {{.RunID}} {{.Region}} {{.VpcID}}
	// {{.ClusterName}} {{.SubnetIDs}}, with the functions awsName (a name unique per run and object
	// within AWS's 32-character limit), ref and refNamespace (another group's object at an index)
	// and add, sub, mul, div, mod. The objects are spread over fleet.namespaces and carry the run's
	// labels. A status in the template is written through the status subresource once the object
	// exists (e.g. a Pod's Running status, which no kubelet writes on envtest). Required.
	Template json.RawMessage `json:"template"`
	// After are groups whose objects must all be ready before this group's are created (e.g. a
	// listener's load balancer). Default: none, created with the fleet.
	After []string `json:"after,omitempty"`
	// Ready is a CEL condition over object (and aws): the object is ready, e.g.
	// object.status.conditions.exists(c, c.type == "ACK.ResourceSynced" && c.status == "True").
	// The warm-up waits for every object to be ready. Default: true once the object exists.
	Ready string `json:"ready,omitempty"`
	// AWS is how an object maps to its AWS resource, bound to aws in the conditions. Default: none.
	AWS *AWSRef `json:"aws,omitempty"`
	// Invariant is a CEL condition over object and aws that must hold for every object in a steady
	// state and at the end of the run, e.g. aws != null && aws.healthCheck.path ==
	// object.spec.healthCheckPath. Default: none.
	Invariant string `json:"invariant,omitempty"`
}

// AWSRef finds the AWS resource behind an object. Every field but kind is a CEL string
// expression over object. Target groups and load balancers are found by arn or name, listeners and
// rules by arn, route53HostedZone and securityGroup by id or name, s3Bucket by name, ec2Instance by id
// or by its private IPv4 address as name (a Pod's status.hostIP), and route53RecordSet by zone, name
// and type (with setIdentifier for a weighted or otherwise routed set).
type AWSRef struct {
	// Kind is the AWS resource kind: targetGroup, loadBalancer, listener, rule (ELBv2),
	// route53HostedZone, route53RecordSet, securityGroup, s3Bucket or ec2Instance.
	Kind string `json:"kind"`
	// ARN is a CEL string expression over object giving the resource's ARN, e.g.
	// object.status.ackResourceMetadata.arn, or another object's through a reference, e.g.
	// ref('loadbalancers', object.spec.loadBalancerRef.from.name).status.ackResourceMetadata.arn.
	ARN string `json:"arn,omitempty"`
	// Name is a CEL string expression over object giving the resource's name: a target group's, load
	// balancer's, security group's or bucket's name, a hosted zone's domain, or a record set's DNS name
	// (any case, trailing dot optional, "*" for a wildcard).
	Name string `json:"name,omitempty"`
	// ID is a CEL string expression over object giving a hosted zone's ID (Z..., "/hostedzone/"
	// prefix allowed) or a security group's (sg-...).
	ID string `json:"id,omitempty"`
	// Zone is a CEL string expression over object giving a record set's hosted zone: its ID or its
	// domain (a domain held by both a public and a private zone finds neither: give the ID).
	Zone string `json:"zone,omitempty"`
	// Type is a CEL string expression over object giving a record set's type, e.g. "A" or "TXT".
	Type string `json:"type,omitempty"`
	// SetIdentifier is a CEL string expression over object giving a routed record set's identifier.
	// Default: none (a simple record set).
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

// MaxCount bounds Group.Count, so that a typo cannot ask for millions of objects.
const MaxCount = 100000

package scenario

import "encoding/json"

// ObjectGroup is a named group of Kubernetes objects of any kind (custom resources included), made
// from one template, which the controller under test owns: e.g. the TargetGroups of the ACK ELBv2
// controller. A restart's changes to them are patches, creates and deletes (churn kinds patch,
// create, delete); whether AWS shows a change, and whether an object is ready, are CEL conditions
// over the object and its AWS resource, which may follow references to the groups' other objects
// (ref, owners, selected).
type ObjectGroup struct {
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
	AWS *ObjectAWSRef `json:"aws,omitempty"`
	// Invariant is a CEL condition over object and aws that must hold for every object in a steady
	// state and at the end of the run, e.g. aws != null && aws.healthCheck.path ==
	// object.spec.healthCheckPath. Default: none.
	Invariant string `json:"invariant,omitempty"`
}

// ObjectAWSRef finds the AWS resource behind an object, by ARN or by name.
type ObjectAWSRef struct {
	// Kind is the ELBv2 resource kind: targetGroup, loadBalancer, listener or rule.
	Kind string `json:"kind"`
	// ARN is a CEL string expression over object giving the resource's ARN, e.g.
	// object.status.ackResourceMetadata.arn, or another object's through a reference, e.g.
	// ref('loadbalancers', object.spec.loadBalancerRef.from.name).status.ackResourceMetadata.arn.
	ARN string `json:"arn,omitempty"`
	// Name is a CEL string expression over object giving the resource's name (target groups and load
	// balancers), e.g. object.spec.name. One of ARN and Name.
	Name string `json:"name,omitempty"`
}

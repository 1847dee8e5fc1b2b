package scaffold

// The kinds of other ACK controllers whose AWS resources fakeaws holds: Route53 (hosted zones and record
// sets), EC2 security groups and S3 buckets. Fields from the controllers' CRDs (route53-controller v1.5.2,
// ec2-controller, s3-controller).

const (
	zoneInvariant = "aws != null && (!has(object.spec.tags) || object.spec.tags.all(t, has(aws.tags) && " +
		"aws.tags.exists(a, a.key == t.key && a.value == t.value)))"
	recordInvariant = "aws != null && has(aws.values) && aws.values == object.spec.resourceRecords.map(r, r.value)"
	sgApplied       = "aws != null && aws.ingress.exists(r, r.fromPort == object.spec.ingressRules[0].fromPort && " +
		"r.toPort == object.spec.ingressRules[0].toPort)"
	sgInvariant = "aws != null && (!has(object.spec.ingressRules) || object.spec.ingressRules.all(i, " +
		"aws.ingress.exists(r, r.fromPort == i.fromPort && r.toPort == i.toPort)))"
	// zoneOf is a record set's hosted zone domain, through its hostedZoneRef; {ref} is the zones' group.
	zoneOf = "ref('{ref}', object.spec.hostedZoneRef.from.name).spec.name"
)

func init() {
	known["route53.services.k8s.aws/HostedZone"] = &knownKind{
		prefix: "zone",
		// A fully qualified domain unique per run and object, with the trailing dot Route53 returns: ACK
		// compares spec.name with what AWS returns, and the field is immutable.
		fields:  map[string]any{"spec.name": `{{awsName "zone"}}.example.com.`},
		awsKind: "route53HostedZone", awsName: "object.spec.name",
		invariant: zoneInvariant,
		patch:     map[string]any{"spec": map[string]any{"tags": []any{map[string]any{"key": "restartsim-change", "value": "v{{.Seq}}"}}}},
		applied:   "aws != null && has(aws.tags) && aws.tags.exists(t, t.key == 'restartsim-change' && t.value == object.spec.tags[0].value)",
		mutations: []string{"ChangeTagsForResource"},
		why:       "a tag: ChangeTagsForResource applies it and fakeaws's hosted zone shows it",
	}
	known["route53.services.k8s.aws/RecordSet"] = &knownKind{
		prefix: "rec",
		// ACK appends the zone's domain to a name without a trailing dot.
		fields: map[string]any{
			"spec.name": "rec-{{.Index}}", "spec.recordType": "A", "spec.ttl": 300,
			"spec.resourceRecords[].value": "10.1.{{div .Index 250}}.{{add 1 (mod .Index 250)}}",
		},
		awsKind:   "route53RecordSet",
		awsFields: []string{"zone", zoneOf, "name", "object.spec.name + '.' + " + zoneOf, "type", "object.spec.recordType"},
		ref:       "hostedzone",
		alone: map[string]string{
			"spec.hostedZoneID": "the ID of a hosted zone that exists before the run (or pass --kind HostedZone too)",
			"aws.name":          "a CEL string giving the record's fully qualified name, e.g. object.spec.name + '.example.com.'",
		},
		aloneFields: []string{"zone", "object.spec.hostedZoneID", "name", "", "type", "object.spec.recordType"},
		invariant:   recordInvariant,
		patch:       map[string]any{"spec": map[string]any{"resourceRecords": []any{map[string]any{"value": "10.2.{{div .Seq 250}}.{{add 1 (mod .Seq 250)}}"}}}},
		applied:     recordInvariant, mutations: []string{"ChangeResourceRecordSets"},
		why: "the record's address: ChangeResourceRecordSets applies it and fakeaws's record set shows it",
	}
	known["ec2.services.k8s.aws/SecurityGroup"] = &knownKind{
		prefix:  "sg",
		fields:  map[string]any{"spec.description": "restartsim {{.Index}}"},
		awsKind: "securityGroup", awsName: "object.spec.name",
		invariant: sgInvariant,
		patch: map[string]any{"spec": map[string]any{"ingressRules": []any{map[string]any{
			"ipProtocol": "tcp", "fromPort": "{{int (add 8000 .Seq)}}", "toPort": "{{int (add 8000 .Seq)}}",
			"ipRanges": []any{map[string]any{"cidrIP": "10.0.0.0/8"}},
		}}}},
		applied: sgApplied, mutations: []string{"AuthorizeSecurityGroupIngress"},
		why: "an ingress rule: AuthorizeSecurityGroupIngress applies it and fakeaws's security group shows it",
	}
	known["s3.services.k8s.aws/Bucket"] = &knownKind{
		prefix:  "bucket",
		awsKind: "s3Bucket", awsName: "object.spec.name",
		invariant: "aws != null",
		why:       "fakeaws shows a bucket's name and creation date only, so no spec change shows in AWS",
	}
}

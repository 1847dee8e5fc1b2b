package scaffold

import "strings"

// knownKind is what the scaffold knows of a kind beyond its schema: the AWS resource behind it and
// how a change to it shows there (from scenarios/ack/restart.yaml, measured against the ACK ELBv2
// controller).
type knownKind struct {
	// prefix names the objects (metadata.name) and, through awsName, their AWS resources.
	prefix string
	// fields are spec values AWS needs to create the resource, by path (a list item is "[]").
	fields map[string]any
	// awsKind, awsARN and awsName are the group's aws mapping (one of awsARN and awsName), or awsFields its
	// key and CEL pairs, where {ref} stands for the group of the kind ref names (lowercased).
	awsKind, awsARN, awsName string
	awsFields                []string
	ref                      string
	// alone are the spec fields (and aws.KEY mapping fields) left to fill, by what they need, when the
	// kind ref names is not chosen; aloneFields are then the mapping's pairs ("" a placeholder).
	alone       map[string]string
	aloneFields []string
	invariant   string
	// patch is a merge patch of a field the mapping observes, applied its CEL condition, and
	// mutations the AWS operations that apply it.
	patch     map[string]any
	applied   string
	mutations []string
	why       string
}

const ackConditionType = "ACK.ResourceSynced"

// isACK reports whether group is an AWS Controllers for Kubernetes API group.
func isACK(group string) bool {
	return group == "services.k8s.aws" || strings.HasSuffix(group, ".services.k8s.aws")
}

// awsish reports whether a CRD's objects stand for AWS resources, whose names follow AWS's rules.
func awsish(group string) bool {
	return strings.HasSuffix(group, ".aws") || strings.HasSuffix(group, ".amazonaws.com") || strings.Contains(group, ".aws.")
}

const tgInvariant = "aws != null && aws.healthCheck.path == object.spec.healthCheckPath"

// known are the kinds with an AWS mapping, by group/kind.
var known = map[string]*knownKind{
	"elbv2.services.k8s.aws/TargetGroup": {
		prefix:  "tg",
		fields:  map[string]any{"spec.protocol": "HTTP", "spec.port": 80, "spec.targetType": "ip", "spec.healthCheckPath": "/healthz"},
		awsKind: "targetGroup", awsName: "object.spec.name",
		invariant: tgInvariant,
		patch:     map[string]any{"spec": map[string]any{"healthCheckPath": "/v{{.Seq}}"}},
		applied:   tgInvariant, mutations: []string{"ModifyTargetGroup"},
		why: "the health check path: ModifyTargetGroup applies it and fakeaws's target group shows it",
	},
	"elbv2.services.k8s.aws/LoadBalancer": {
		prefix:  "lb",
		fields:  map[string]any{"spec.type": "application", "spec.scheme": "internal"},
		awsKind: "loadBalancer", awsName: "object.spec.name",
		invariant: "aws != null && (!has(object.spec.attributes) || object.spec.attributes.all(a, a.key in aws.attributes && aws.attributes[a.key] == a.value))",
		patch:     map[string]any{"spec": map[string]any{"attributes": []any{map[string]any{"key": "idle_timeout.timeout_seconds", "value": "{{add 60 .Seq}}"}}}},
		applied:   "aws != null && 'idle_timeout.timeout_seconds' in aws.attributes && aws.attributes['idle_timeout.timeout_seconds'] == object.spec.attributes[0].value",
		mutations: []string{"ModifyLoadBalancerAttributes"},
		why:       "the idle timeout attribute: ModifyLoadBalancerAttributes applies it",
	},
	"elbv2.services.k8s.aws/Listener": {
		prefix:  "listener",
		fields:  map[string]any{"spec.protocol": "HTTP", "spec.port": 80, "spec.defaultActions[].type": "forward"},
		awsKind: "listener", awsARN: "object.status.ackResourceMetadata.arn",
		invariant: "aws != null && aws.port == object.spec.port",
		patch:     map[string]any{"spec": map[string]any{"port": "{{int (add 8000 .Seq)}}"}},
		applied:   "aws != null && aws.port == object.spec.port", mutations: []string{"ModifyListener"},
		why: "the port: ModifyListener applies it",
	},
	"elbv2.services.k8s.aws/Rule": {
		prefix: "rule",
		fields: map[string]any{
			"spec.priority":       10,
			"spec.conditions":     []any{map[string]any{"field": "path-pattern", "pathPatternConfig": map[string]any{"values": []any{"/api/*"}}}},
			"spec.actions[].type": "forward",
		},
		awsKind: "rule", awsARN: "object.status.ackResourceMetadata.arn",
		invariant: `aws != null && aws.conditions.exists(c, c.field == "path-pattern" && c.values == object.spec.conditions[0].pathPatternConfig.values)`,
		patch:     map[string]any{"spec": map[string]any{"conditions": []any{map[string]any{"field": "path-pattern", "pathPatternConfig": map[string]any{"values": []any{"/v{{.Seq}}/*"}}}}}},
		applied:   `aws != null && aws.conditions.exists(c, c.field == "path-pattern" && c.values == object.spec.conditions[0].pathPatternConfig.values)`,
		mutations: []string{"ModifyRule"},
		why:       "the path pattern: ModifyRule applies it",
	},
}

// isTGB reports whether a CRD is the TargetGroupBinding the harness makes itself (fleet.targetGroupBindings,
// with their Services, pods and target groups).
func isTGB(c *CRD) bool { return c.Group == "elbv2.k8s.aws" && c.Kind == "TargetGroupBinding" }

package objects

import (
	"encoding/json"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/restartsim/restartsim/fakeaws"
)

// ackGroups are the ACK ELBv2 controller's four kinds as a scenario describes them: target groups found by
// name, load balancers, listeners and rules by the ARN in their status, each kind after what it refers to.
func ackGroups() []Group {
	arn := "object.status.ackResourceMetadata.arn"
	return []Group{
		{Name: "tgs", Count: 20, Ready: ackSynced, AWS: &AWSRef{Kind: AWSTargetGroup, Name: "object.spec.name"},
			Invariant: `aws != null && aws.healthCheck.path == object.spec.healthCheckPath && aws.port == object.spec.port`,
			Template: json.RawMessage(`{"apiVersion": "elbv2.services.k8s.aws/v1alpha1", "kind": "TargetGroup", "metadata": {"name": "tg-{{.Index}}"},
				"spec": {"name": "{{awsName \"tg\"}}", "port": "{{int (add 8000 .Index)}}", "protocol": "HTTP", "targetType": "ip",
				"vpcID": "{{.VpcID}}", "healthCheckPath": "/healthz", "healthCheckIntervalSeconds": "{{int 10}}"}}`)},
		{Name: "lbs", Count: 5, Ready: ackSynced, AWS: &AWSRef{Kind: AWSLoadBalancer, ARN: arn},
			Invariant: `aws != null && aws.scheme == object.spec.scheme && aws.state == "active"`,
			Template: json.RawMessage(`{"apiVersion": "elbv2.services.k8s.aws/v1alpha1", "kind": "LoadBalancer", "metadata": {"name": "lb-{{.Index}}"},
				"spec": {"name": "{{awsName \"lb\"}}", "scheme": "internal", "type": "application", "enablePrefixForIPv6SourceNAT": "off"}}`)},
		{Name: "listeners", Count: 5, After: []string{"lbs", "tgs"}, Ready: ackSynced, AWS: &AWSRef{Kind: AWSListener, ARN: arn},
			Invariant: `aws != null && aws.port == object.spec.port && aws.defaultActions[0].type == "forward"`,
			Template: json.RawMessage(`{"apiVersion": "elbv2.services.k8s.aws/v1alpha1", "kind": "Listener", "metadata": {"name": "listener-{{.Index}}"},
				"spec": {"loadBalancerRef": {"from": {"name": "{{ref \"lbs\" .Index}}"}}, "port": "{{int 80}}", "protocol": "HTTP",
				"defaultActions": [{"type": "forward", "targetGroupRef": {"from": {"name": "{{ref \"tgs\" .Index}}"}}}]}}`)},
		{Name: "rules", Count: 5, After: []string{"listeners"}, Ready: ackSynced, AWS: &AWSRef{Kind: AWSRule, ARN: arn},
			Invariant: `aws != null && aws.priority == object.spec.priority && aws.conditions[0].values == object.spec.conditions[0].pathPatternConfig.values`,
			Template: json.RawMessage(`{"apiVersion": "elbv2.services.k8s.aws/v1alpha1", "kind": "Rule", "metadata": {"name": "rule-{{.Index}}"},
				"spec": {"listenerRef": {"from": {"name": "{{ref \"listeners\" .Index}}"}}, "priority": "{{int (add 1 .Index)}}",
				"conditions": [{"field": "path-pattern", "pathPatternConfig": {"values": ["/r{{.Index}}"]}}],
				"actions": [{"type": "forward", "targetGroupRef": {"from": {"name": "{{ref \"tgs\" (add 5 .Index)}}"}}}]}}`)},
	}
}

// ackCatalog is the built-in kinds plus ACK's CRDs from ACK_CRDS; the test skips without them.
func ackCatalog(t *testing.T) *Catalog {
	dir := os.Getenv("ACK_CRDS")
	if dir == "" {
		t.Skip("ACK_CRDS is unset: set it to the ACK ELBv2 controller's CRDs (e.g. ../shared/ack/crds) to check conditions against them")
	}
	c, err := LoadCatalog(dir)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestACKGroupsCompileAgainstACKsCRDs(t *testing.T) {
	cat := ackCatalog(t)
	f, err := Compile(cat, ackGroups(), "fleet.objects")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.Order(); len(got) != 3 {
		t.Errorf("creation waves %v, want tgs and lbs, then listeners, then rules", got)
	}
	if _, err := f.CompilePatch(Patch{Group: "tgs", Merge: json.RawMessage(`{"spec": {"healthCheckPath": "/v{{.Seq}}"}}`),
		Applied: `aws != null && aws.healthCheck.path == object.spec.healthCheckPath`, Mutations: []string{"ModifyTargetGroup"}}, "timeline[1]"); err != nil {
		t.Error(err)
	}

	// Typed by ACK's schemas: a misspelt field is refused, in a condition and in a template.
	bad := ackGroups()
	bad[0].Invariant = `object.spec.healthCheckPth == "/"`
	bad[1].Template = json.RawMessage(`{"apiVersion": "elbv2.services.k8s.aws/v1alpha1", "kind": "LoadBalancer", "metadata": {"name": "lb-{{.Index}}"},
		"spec": {"name": "{{awsName \"lb\"}}", "schema": "internal"}}`)
	_, err = Compile(cat, bad, "fleet.objects")
	wantError(t, err, "fleet.objects[0].invariant", "refers to an unknown field 'healthCheckPth'")
	wantError(t, err, "fleet.objects[1].template.spec.schema", "unknown field")

	// A TargetGroup is ready by ACK's condition and holds against AWS's state.
	u, err := f.Render(validationEnv, "tgs", 3)
	if err != nil {
		t.Fatal(err)
	}
	u.Object["status"] = map[string]any{"conditions": []any{map[string]any{"type": "ACK.ResourceSynced", "status": "True"}}}
	spec := u.Object["spec"].(map[string]any)
	state := &fakeState{tgs: []fakeaws.TargetGroup{{ARN: "arn:tg", Name: spec["name"].(string), Port: int32(spec["port"].(int64)),
		HealthCheck: fakeaws.HealthCheck{Path: "/healthz"}}}}
	snap, _ := TakeSnapshot(state)
	st := f.Check([]*unstructured.Unstructured{u}, snap)
	if st.Groups[0].Ready != 1 || len(st.Violations) != 0 {
		t.Errorf("TargetGroup status %+v, violations %v: want ready and holding", st.Groups[0], st.Violations)
	}
}

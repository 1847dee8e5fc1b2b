package objects

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/fielderr"
)

// testCatalog is the built-in kinds plus testdata/crds (Widget, namespaced; Gadget, cluster-scoped).
var testCatalog = sync.OnceValues(func() (*Catalog, error) { return LoadCatalog("testdata/crds") })

func catalog(t testing.TB) *Catalog {
	t.Helper()
	c, err := testCatalog()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// widgetTemplate is a Widget whose name and target group name are templated.
const widgetTemplate = `{"apiVersion": "test.restartsim.io/v1", "kind": "Widget",
  "metadata": {"name": "w-{{.Index}}"},
  "spec": {"name": "{{awsName \"w\"}}", "port": "{{int (add 8000 .Index)}}", "healthCheckPath": "/healthz"}}`

// ackSynced is when an ACK resource is ready; the test CRDs' Widgets report the same condition.
const ackSynced = `object.status.conditions.exists(c, c.type == "ACK.ResourceSynced" && c.status == "True")`

// widgets is a group of n Widgets, each a target group found by spec.name, ready once synced.
func widgets(n int) Group {
	return Group{
		Name: "widgets", Count: n, Template: json.RawMessage(widgetTemplate),
		Ready:     ackSynced,
		AWS:       &AWSRef{Kind: AWSTargetGroup, Name: "object.spec.name"},
		Invariant: `aws != null && aws.healthCheck.path == object.spec.healthCheckPath`,
	}
}

func compile(t testing.TB, groups ...Group) *CompiledGroups {
	t.Helper()
	f, err := Compile(catalog(t), groups, "fleet.objects")
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// fieldErrors returns the paths and messages of a fielderr.List, one "path: msg" each.
func fieldErrors(t testing.TB, err error) []string {
	t.Helper()
	var list fielderr.List
	if !errors.As(err, &list) {
		t.Fatalf("want a fielderr.List, got %T: %v", err, err)
	}
	out := make([]string, len(list))
	for i, e := range list {
		out[i] = e.Error()
	}
	return out
}

// wantError checks that exactly one problem names path and contains every fragment.
func wantError(t testing.TB, err error, path string, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("want an error at %s, got none", path)
	}
	for _, e := range fieldErrors(t, err) {
		if !strings.HasPrefix(e, path+": ") {
			continue
		}
		for _, f := range fragments {
			if !strings.Contains(e, f) {
				t.Errorf("error at %s = %q, want it to contain %q", path, e, f)
			}
		}
		return
	}
	t.Errorf("no error at %s; got %v", path, err)
}

var testEnv = Env{RunID: "run-1", Region: "us-west-2", VpcID: "vpc-1", ClusterName: "c1", Namespaces: []string{"ns-a", "ns-b"}}

// fakeState is an AWSState over fixed resources.
type fakeState struct {
	tgs       []fakeaws.TargetGroup
	targets   map[string][]fakeaws.TargetHealth
	lbs       []fakeaws.LoadBalancer
	ls        map[string][]fakeaws.Listener
	rules     map[string][]fakeaws.ListenerRule
	sgs       []fakeaws.SecurityGroup
	buckets   []fakeaws.S3Bucket
	zones     []fakeaws.HostedZone
	sets      map[string][]fakeaws.RecordSet // by zone ID
	instances []fakeaws.Instance
	now       time.Time
}

func (s *fakeState) Now() time.Time                      { return s.now }
func (s *fakeState) TargetGroups() []fakeaws.TargetGroup { return s.tgs }
func (s *fakeState) Targets(arn string) ([]fakeaws.TargetHealth, error) {
	return s.targets[arn], nil
}
func (s *fakeState) LoadBalancers() []fakeaws.LoadBalancer { return s.lbs }
func (s *fakeState) Listeners(arn string) ([]fakeaws.Listener, error) {
	return s.ls[arn], nil
}
func (s *fakeState) Rules(arn string) ([]fakeaws.ListenerRule, error) {
	return s.rules[arn], nil
}
func (s *fakeState) SecurityGroups() []fakeaws.SecurityGroup           { return s.sgs }
func (s *fakeState) S3Buckets() ([]fakeaws.S3Bucket, error)            { return s.buckets, nil }
func (s *fakeState) HostedZones() []fakeaws.HostedZone                 { return s.zones }
func (s *fakeState) RecordSets(id string) ([]fakeaws.RecordSet, error) { return s.sets[id], nil }
func (s *fakeState) Instances() []fakeaws.Instance                     { return s.instances }

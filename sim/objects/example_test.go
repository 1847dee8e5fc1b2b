package objects_test

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/sim/objects"
)

// A group of ConfigMaps, each naming a target group; object i goes to namespace i mod 2.
func ExampleCompiledGroups_Render() {
	fleet, err := objects.Compile(objects.NewCatalog(), []objects.Group{{
		Name: "backends", Count: 100,
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "backend-{{.Index}}"},
			"data": {"targetGroup": "{{awsName \"be\"}}", "port": "{{add 8000 .Index}}"}}`),
	}}, "fleet.objects")
	if err != nil {
		panic(err)
	}
	env := objects.Env{RunID: "run-1", Namespaces: []string{"ns-0", "ns-1"}}
	obj, err := fleet.Render(env, "backends", 7)
	if err != nil {
		panic(err)
	}
	data, err := json.Marshal(obj.Object["data"])
	if err != nil {
		panic(err)
	}
	fmt.Println(obj.GetNamespace(), obj.GetName(), string(data))
	// Output: ns-1 backend-7 {"port":"8007","targetGroup":"be-53f5edaa-7"}
}

// Conditions are CEL over the object and its AWS resource; a broken invariant names the values it read.
func ExampleCompiledGroups_Check() {
	fleet, err := objects.Compile(objects.NewCatalog(), []objects.Group{{
		Name: "backends", Count: 1,
		Template: json.RawMessage(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "backend-{{.Index}}"},
			"data": {"targetGroup": "tg-{{.Index}}", "path": "/healthz"}}`),
		AWS:       &objects.AWSRef{Kind: objects.AWSTargetGroup, Name: "object.data.targetGroup"},
		Invariant: "aws != null && aws.healthCheck.path == object.data.path",
	}}, "fleet.objects")
	if err != nil {
		panic(err)
	}
	obj, _ := fleet.Render(objects.Env{Namespaces: []string{"ns"}}, "backends", 0)
	snap, _ := objects.TakeSnapshot(state{{Name: "tg-0", HealthCheck: fakeaws.HealthCheck{Path: "/"}}})
	for _, v := range fleet.Check([]*unstructured.Unstructured{obj}, snap).Violations {
		fmt.Println(v)
	}
	// Output: fleet.objects[0].invariant: backends object 0 (ns/backend-0): invariant aws != null && aws.healthCheck.path == object.data.path is false: aws.healthCheck.path = "/", object.data.path = "/healthz"
}

// state is an AWS account of target groups only.
type state []fakeaws.TargetGroup

func (s state) Now() (t time.Time)                             { return t }
func (s state) TargetGroups() []fakeaws.TargetGroup            { return s }
func (s state) Targets(string) ([]fakeaws.TargetHealth, error) { return nil, nil }
func (s state) LoadBalancers() []fakeaws.LoadBalancer          { return nil }
func (s state) Listeners(string) ([]fakeaws.Listener, error)   { return nil, nil }
func (s state) Rules(string) ([]fakeaws.ListenerRule, error)   { return nil, nil }
func (s state) SecurityGroups() []fakeaws.SecurityGroup        { return nil }
func (s state) S3Buckets() ([]fakeaws.S3Bucket, error)         { return nil, nil }
func (s state) HostedZones() []fakeaws.HostedZone              { return nil }
func (s state) RecordSets(string) ([]fakeaws.RecordSet, error) { return nil, nil }
func (s state) Instances() []fakeaws.Instance                  { return nil }

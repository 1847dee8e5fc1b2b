package objects

import (
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restartsim/restartsim/fakeaws"
)

// jsonValue must give what the JSON encoding gives (runtime's converter goes through it).
func TestJSONValueMatchesTheJSONEncoding(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	views := []any{
		&targetGroupView{
			TargetGroup: fakeaws.TargetGroup{ARN: "arn", Name: "n", Port: 80, HealthCheck: fakeaws.HealthCheck{Path: "/", IntervalSeconds: 5},
				Tags: []fakeaws.Tag{{Key: "k", Value: "v"}}, CreatedAt: t0, Attributes: map[string]string{"a": "b"}},
			Targets: []fakeaws.TargetHealth{{Target: fakeaws.Target{ID: "10.0.0.1", Port: 80}, State: "draining", RegisteredAt: t0, DeregisteredAt: &t0}},
		},
		&targetGroupView{}, // zero times, nil slices and maps
		&loadBalancerView{LoadBalancer: fakeaws.LoadBalancer{ARN: "arn", SecurityGroupIDs: []string{"sg"}}, State: "active",
			Listeners: []fakeaws.Listener{{ARN: "l", DefaultActions: []fakeaws.Action{{Type: "forward", TargetGroupARN: "tg"}}}}},
		&listenerView{Rules: []fakeaws.ListenerRule{{ARN: "r", Priority: 2, Conditions: []fakeaws.RuleCondition{{Field: "host-header", Values: []string{"a"}}}}}},
		&ruleView{ListenerRule: fakeaws.ListenerRule{ARN: "r", IsDefault: true}},
	}
	for _, v := range views {
		want, err := runtime.DefaultUnstructuredConverter.ToUnstructured(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonValue(reflect.ValueOf(v)); !reflect.DeepEqual(got, want) {
			t.Errorf("jsonValue(%T) =\n%#v\nwant\n%#v", v, got, want)
		}
	}
}

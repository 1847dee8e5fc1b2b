package scenario

import (
	"strings"
	"testing"
)

const instanceNodesBase = `apiVersion: restartsim/v1
kind: Scenario
name: nodes
fleet: {targetGroupBindings: 1}
controller: {strategies: [{name: a}]}
`

func TestInstanceNodesFields(t *testing.T) {
	s, err := Parse("nodes.yaml", []byte(instanceNodesBase+`cluster: {scheduler: true, instanceNodes: {joinDelay: 30s}}
timeline:
  - {action: restart}
  - {action: churn, kind: deleteNodes, count: 2}
`))
	if err != nil {
		t.Fatal(err)
	}
	n := s.Cluster.InstanceNodes
	if !s.Cluster.Scheduler || n.JoinDelay.Seconds() != 30 || n.RemoveAfter.Seconds() != 5 {
		t.Fatalf("cluster %+v, instanceNodes %+v", s.Cluster, n)
	}
	if st := s.Timeline[1]; st.Kind != ChurnDeleteNodes || st.Count != 2 {
		t.Fatalf("step %+v", st)
	}
}

func TestInstanceNodesRejects(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"scheduler on kubeconfig", `cluster: {scheduler: true, kubeconfig: {path: /x}}
timeline: [{action: restart}]`, "nodes.yaml:6:11: cluster.scheduler"},
		{"negative join delay", `cluster: {instanceNodes: {joinDelay: -1s}}
timeline: [{action: restart}]`, "cluster.instanceNodes.joinDelay"},
		{"deleteNodes without instance nodes", `timeline: [{action: churn, kind: deleteNodes}]`, "set cluster.instanceNodes"},
		{"deleteNodes with services", `cluster: {instanceNodes: {}}
timeline: [{action: churn, kind: deleteNodes, services: 3}]`, "takes count"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("nodes.yaml", []byte(instanceNodesBase+tc.doc+"\n"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming %q", err, tc.want)
			}
		})
	}
}

package workload_test

import (
	"context"
	"testing"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/workload"
)

// TestSpecCasesOnTheAPIServer: the spec fields of the fleet's bindings survive the API server (the
// CRD keeps them), and a Service's second EndpointSlice lists the first endpoint of its slice again,
// at creation and after its pods were replaced; the desired targets count each endpoint once.
func TestSpecCasesOnTheAPIServer(t *testing.T) {
	tf := createFleet(t, workload.Spec{TGBs: 4, Namespaces: 1, PodsPerService: 3, Nodes: 2, TargetGroupProtocolShare: 1,
		AssumeRoleShare: 1, NamedPortShare: 1, DuplicateEndpointShare: 1}, 31)
	ctx := context.Background()
	k8s := cluster(t).Client
	inStep := func(t *testing.T, tp *workload.TGBPlan) {
		t.Helper()
		var main, dup discoveryv1.EndpointSlice
		for name, s := range map[string]*discoveryv1.EndpointSlice{tp.Name + "-sim": &main, tp.Name + "-sim-dup": &dup} {
			if err := k8s.Get(ctx, types.NamespacedName{Namespace: tp.Namespace, Name: name}, s); err != nil {
				t.Fatal(err)
			}
		}
		if len(main.Endpoints) == 0 || len(dup.Endpoints) != 1 || !equality.Semantic.DeepEqual(dup.Endpoints[0], main.Endpoints[0]) {
			t.Fatalf("%s: second slice lists %v; the slice %v", tp.Name, dup.Endpoints, main.Endpoints)
		}
		if len(dup.Ports) != 2 || dup.Labels[discoveryv1.LabelServiceName] != tp.Name {
			t.Fatalf("%s: second slice ports %v, labels %v", tp.Name, dup.Ports, dup.Labels)
		}
	}
	for _, tp := range tf.TGBs {
		if tp.TargetType != v1beta1.TargetTypeIP {
			continue
		}
		inStep(t, tp)
		var tgb v1beta1.TargetGroupBinding
		if err := k8s.Get(ctx, client.ObjectKey{Namespace: tp.Namespace, Name: tp.Name}, &tgb); err != nil {
			t.Fatal(err)
		}
		s := tgb.Spec
		if s.TargetGroupProtocol == nil || s.IamRoleArnToAssume != workload.AssumeRoleARN(tp.TargetGroupARN) ||
			s.AssumeRoleExternalId != tp.AssumeRoleExternalID || s.ServiceRef.Port.StrVal != workload.PortName {
			t.Errorf("%s: spec %+v as the API server keeps it", tp.Name, s)
		}
	}
	tp := tf.TGBs[0]
	if _, err := tf.RotatePodIPs(ctx, tp.Key(), 3); err != nil {
		t.Fatal(err)
	}
	inStep(t, tp)
	d := tf.desired(t)[tp.Key()]
	if len(d.Targets) != 3 {
		t.Fatalf("desired targets %v: want the 3 pods once each", d.Targets)
	}
}

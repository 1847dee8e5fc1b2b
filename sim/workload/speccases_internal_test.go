package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
)

func specCasesSpec(fraction float64) Spec {
	return Spec{TGBs: 40, Namespaces: 2, PodsPerService: 2, InstanceShare: 0.25, ReadinessGateShare: 0.5, NetworkingShare: 0.5,
		Nodes: 3, TargetGroupProtocolShare: fraction, AssumeRoleShare: fraction, NamedPortShare: fraction, DuplicateEndpointShare: fraction}
}

// TestSpecCasesArePlannedLast: the TGBs that set targetGroupProtocol, iamRoleArnToAssume or a named
// port are drawn after everything else, so a fleet with them is the fleet without them plus those
// marks, and one without them is planned as before they existed.
func TestSpecCasesArePlannedLast(t *testing.T) {
	plain := Plan(specCasesSpec(0), rand.New(rand.NewPCG(7, 8)))
	marked := Plan(specCasesSpec(0.5), rand.New(rand.NewPCG(7, 8)))
	var protocol, role, external, named, dup, ip int
	for i, m := range marked.TGBs {
		if m.TargetGroupProtocol != "" {
			protocol++
			if m.TargetGroupProtocol != TargetGroupProtocol {
				t.Errorf("%s: targetGroupProtocol %q", m.Name, m.TargetGroupProtocol)
			}
		}
		if m.AssumeRole {
			role++
		}
		if m.AssumeRoleExternalID != "" {
			external++
			if !m.AssumeRole {
				t.Errorf("%s: an external ID without a role", m.Name)
			}
		}
		if m.TargetType == v1beta1.TargetTypeIP {
			ip++
		}
		if m.NamedPort {
			named++
			if m.TargetType != v1beta1.TargetTypeIP {
				t.Errorf("%s: a named port on a %s binding", m.Name, m.TargetType)
			}
		}
		if m.DuplicateEndpoint {
			dup++
			if m.TargetType != v1beta1.TargetTypeIP {
				t.Errorf("%s: a second slice of a %s binding", m.Name, m.TargetType)
			}
		}
		p := plain.TGBs[i]
		if p.TargetGroupProtocol != "" || p.AssumeRole || p.AssumeRoleExternalID != "" || p.NamedPort || p.DuplicateEndpoint {
			t.Errorf("%s: marked with every share 0", p.Name)
		}
		if !reflect.DeepEqual(m.Pods, p.Pods) || m.Key() != p.Key() || m.TargetGroupName != p.TargetGroupName || m.TargetType != p.TargetType ||
			m.ReadinessGate != p.ReadinessGate || m.Networking != p.Networking || m.NodePort != p.NodePort {
			t.Errorf("TGB %d is %s %s with pods %v; without the marks %s %s with %v", i, m.Key(), m.TargetType, m.Pods, p.Key(), p.TargetType, p.Pods)
		}
	}
	if protocol != 20 || role != 20 || external != 10 || named != share(ip, 0.5) || dup != share(ip, 0.5) {
		t.Errorf("marked %d protocol, %d role (%d with an external ID), %d named port and %d second slices of %d ip: want 20, 20 (10), %d, %d",
			protocol, role, external, named, dup, ip, share(ip, 0.5), share(ip, 0.5))
	}
	if !reflect.DeepEqual(plain.Nodes, marked.Nodes) || !reflect.DeepEqual(plain.Namespaces, marked.Namespaces) {
		t.Error("the marks changed the nodes or namespaces")
	}
}

// lbcSpec has the AWS Load Balancer Controller's TargetGroupBindingSpec fields in its order
// (apis/elbv2/v1beta1), nested values kept as written: a spec read into it and written back is the
// JSON whose SHA-256 LBC's checkpoint holds.
type lbcSpec struct {
	TargetGroupARN          string          `json:"targetGroupARN,omitempty"`
	TargetGroupName         string          `json:"targetGroupName,omitempty"`
	MultiClusterTargetGroup bool            `json:"multiClusterTargetGroup,omitempty"`
	TargetType              *string         `json:"targetType,omitempty"`
	TargetGroupProtocol     *string         `json:"targetGroupProtocol,omitempty"`
	ServiceRef              json.RawMessage `json:"serviceRef"`
	Networking              json.RawMessage `json:"networking,omitempty"`
	NodeSelector            json.RawMessage `json:"nodeSelector,omitempty"`
	IPAddressType           *string         `json:"ipAddressType,omitempty"`
	VpcID                   string          `json:"vpcID,omitempty"`
	IamRoleArnToAssume      string          `json:"iamRoleArnToAssume,omitempty"`
	AssumeRoleExternalId    string          `json:"assumeRoleExternalId,omitempty"`
}

// TestSpecCaseObjects: the fleet's bindings with these cases carry them in their spec, whose JSON is
// LBC's field for field and in LBC's order (so both controllers hash the same spec), and a named
// port's second Service and slice port is no target.
func TestSpecCaseObjects(t *testing.T) {
	f := Plan(specCasesSpec(1), rand.New(rand.NewPCG(7, 8)))
	f.live = &liveState{lbSG: "sg-0lb"}
	const account = "210987654321"
	now := metav1.NewTime(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	var objs tgbexpect.Objects
	for i, n := range f.Nodes {
		objs.Nodes = append(objs.Nodes, f.nodeObject(n, fmt.Sprintf("sg-%d", i), nil, now))
	}
	for i, tp := range f.TGBs {
		tp.TargetGroupARN = fmt.Sprintf("arn:aws:elasticloadbalancing:us-west-2:%s:targetgroup/%s/%016x", account, tp.TargetGroupName, i)
		var pods []*corev1.Pod
		for _, pp := range tp.Pods {
			pod := f.podObject(tp, pp, "sg-1", nil)
			pod.Status = f.runningStatus(pod, pp, now)
			pods = append(pods, pod)
		}
		objs.Pods = append(objs.Pods, pods...)
		objs.Services = append(objs.Services, f.serviceObject(tp, nil))
		slice := f.sliceObject(tp, pods, nil)
		objs.Slices = append(objs.Slices, slice)
		if tp.DuplicateEndpoint {
			dup := duplicateSliceObject(slice)
			if dup.Name != duplicateSliceName(tp.Name) || len(dup.Endpoints) != 1 || dup.Endpoints[0].Addresses[0] != slice.Endpoints[0].Addresses[0] ||
				!reflect.DeepEqual(dup.Ports, slice.Ports) || len(dup.Annotations) != 0 {
				t.Errorf("%s: second slice %s %v %v, want the first endpoint of %v on its ports", tp.Name, dup.Name, dup.Endpoints, dup.Ports, slice.Endpoints)
			}
			objs.Slices = append(objs.Slices, dup)
		}
		tgb := f.tgbObject(tp, nil)
		objs.TGBs = append(objs.TGBs, tgb)

		s := tgb.Spec
		if s.TargetGroupProtocol == nil || *s.TargetGroupProtocol != "HTTP" {
			t.Errorf("%s: targetGroupProtocol %v", tp.Name, s.TargetGroupProtocol)
		}
		if want := "arn:aws:iam::" + account + ":role/" + AssumeRoleName; s.IamRoleArnToAssume != want {
			t.Errorf("%s: iamRoleArnToAssume %q, want %q", tp.Name, s.IamRoleArnToAssume, want)
		}
		if s.AssumeRoleExternalId != tp.AssumeRoleExternalID {
			t.Errorf("%s: assumeRoleExternalId %q, planned %q", tp.Name, s.AssumeRoleExternalId, tp.AssumeRoleExternalID)
		}
		if named := s.ServiceRef.Port.StrVal == PortName; named != (tp.TargetType == v1beta1.TargetTypeIP) {
			t.Errorf("%s (%s): serviceRef.port %s", tp.Name, tp.TargetType, s.ServiceRef.Port.String())
		}

		ours, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var lbc lbcSpec
		dec := json.NewDecoder(bytes.NewReader(ours))
		dec.DisallowUnknownFields() // a field LBC lacks would be dropped from its hash
		if err := dec.Decode(&lbc); err != nil {
			t.Fatalf("%s: LBC's spec cannot hold %s: %v", tp.Name, ours, err)
		}
		theirs, err := json.Marshal(lbc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("%s: spec JSON\n ours %s\n LBC's %s", tp.Name, ours, theirs)
		}
		if !strings.Contains(string(ours), `"iamRoleArnToAssume"`) {
			t.Errorf("%s: %s lacks the role", tp.Name, ours)
		}
	}

	want, err := objs.Desired()
	if err != nil {
		t.Fatal(err)
	}
	for _, tp := range f.TGBs {
		if !tp.NamedPort && !tp.DuplicateEndpoint {
			continue
		}
		d := want[types.NamespacedName{Namespace: tp.Namespace, Name: tp.Name}]
		if len(d.Targets) != len(tp.Pods) {
			t.Errorf("%s: targets %v, want one per pod (once, though listed twice)", tp.Name, d.Targets)
		}
		for _, tg := range d.Targets {
			if tg.Port != f.Spec.Port {
				t.Errorf("%s: target %v: want port %d, not the metrics port", tp.Name, tg, f.Spec.Port)
			}
		}
	}
	for _, s := range objs.Slices {
		svc := s.Labels[discoveryv1.LabelServiceName]
		if tp := f.byKey[types.NamespacedName{Namespace: s.Namespace, Name: svc}]; tp.NamedPort && len(s.Ports) != 2 {
			t.Errorf("slice of %s: ports %v, want http and metrics", svc, s.Ports)
		}
	}
}

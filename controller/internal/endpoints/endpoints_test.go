package endpoints

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/controller/internal/readinessgate"
)

func TestServicePort(t *testing.T) {
	svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}, {Name: "https", Port: 443}}}}
	if p, err := ServicePort(svc, intstr.FromInt32(443)); err != nil || p.Name != "https" {
		t.Fatalf("by number: %v %v", p, err)
	}
	if p, err := ServicePort(svc, intstr.FromString("http")); err != nil || p.Port != 80 {
		t.Fatalf("by name: %v %v", p, err)
	}
	if _, err := ServicePort(svc, intstr.FromInt32(8080)); err == nil {
		t.Fatal("missing port found")
	}
}

func pod(name string, gated, containersReady bool) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, CreationTimestamp: metav1.NewTime(time.Unix(100, 0))}}
	if gated {
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: readinessgate.ConditionType("tgb")}}
	}
	st := corev1.ConditionFalse
	if containersReady {
		st = corev1.ConditionTrue
	}
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.ContainersReady, Status: st}}
	return p
}

func ep(ip, podName string, ready *bool) discoveryv1.Endpoint {
	return discoveryv1.Endpoint{Addresses: []string{ip}, Conditions: discoveryv1.EndpointConditions{Ready: ready},
		TargetRef: &corev1.ObjectReference{Kind: "Pod", Name: podName}}
}

func TestResolveIP(t *testing.T) {
	pods := map[string]*corev1.Pod{
		"ready":       pod("ready", false, true),
		"notready":    pod("notready", false, false),
		"gated":       pod("gated", true, true),
		"gatedcrash":  pod("gatedcrash", true, false),
		"nilcond":     pod("nilcond", false, true),
		"dup":         pod("dup", false, true),
		"otherfamily": pod("otherfamily", false, true),
	}
	slices := []discoveryv1.EndpointSlice{
		{AddressType: discoveryv1.AddressTypeIPv4,
			Ports: []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080)}},
			Endpoints: []discoveryv1.Endpoint{
				ep("10.0.0.1", "ready", ptr.To(true)),
				ep("10.0.0.2", "notready", ptr.To(false)),
				ep("10.0.0.3", "gated", ptr.To(false)),
				ep("10.0.0.4", "gatedcrash", ptr.To(false)),
				ep("10.0.0.5", "nilcond", nil),
				ep("10.0.0.6", "missing", ptr.To(true)),
			}},
		{AddressType: discoveryv1.AddressTypeIPv4, // same endpoint in a second slice
			Ports:     []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080)}},
			Endpoints: []discoveryv1.Endpoint{ep("10.0.0.1", "ready", ptr.To(true))}},
		{AddressType: discoveryv1.AddressTypeIPv4, // other service port
			Ports:     []discoveryv1.EndpointPort{{Name: ptr.To("admin"), Port: ptr.To[int32](9090)}},
			Endpoints: []discoveryv1.Endpoint{ep("10.0.0.7", "dup", ptr.To(true))}},
		{AddressType: discoveryv1.AddressTypeIPv6,
			Ports:     []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080)}},
			Endpoints: []discoveryv1.Endpoint{ep("fd00::1", "otherfamily", ptr.To(true))}},
	}
	res := ResolveIP(IPInput{
		ServicePort: corev1.ServicePort{Name: "http", Port: 80},
		Slices:      slices, AddressType: discoveryv1.AddressTypeIPv4,
		Pod:  func(n string) (*corev1.Pod, bool) { p, ok := pods[n]; return p, ok },
		Gate: readinessgate.ConditionType("tgb"),
	})
	var got []string
	for _, e := range res.Endpoints {
		got = append(got, e.Target.Key())
	}
	want := []string{"10.0.0.1:8080", "10.0.0.3:8080", "10.0.0.5:8080"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if !res.Incomplete {
		t.Fatal("missing ready pod must make the result incomplete")
	}
	if e := res.Endpoints[1]; !e.Gated || e.Ready || e.HashID != "10.0.0.3:8080:100000" {
		t.Fatalf("gated endpoint %+v", e)
	}
}

func node(name, providerID string, ready bool, lbls map[string]string) corev1.Node {
	st := corev1.ConditionFalse
	if ready {
		st = corev1.ConditionTrue
	}
	return corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: lbls, CreationTimestamp: metav1.NewTime(time.Unix(5, 0))},
		Spec:   corev1.NodeSpec{ProviderID: providerID},
		Status: corev1.NodeStatus{Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: st}}}}
}

func TestResolveInstance(t *testing.T) {
	nodes := []corev1.Node{
		node("a", "aws:///us-east-1a/i-aaa", true, map[string]string{"pool": "web"}),
		node("b", "aws:///us-east-1b/i-bbb", true, map[string]string{"pool": "batch"}),
		node("c", "aws:///us-east-1a/i-ccc", false, map[string]string{"pool": "web"}),
		node("d", "aws:///us-east-1a/i-ddd", true, map[string]string{"pool": "web", LabelExcludeFromLB: ""}),
		node("e", "kind://docker/e", true, map[string]string{"pool": "web"}),
	}
	sel := labels.SelectorFromSet(labels.Set{"pool": "web"})
	res, err := ResolveInstance(InstanceInput{ServicePort: corev1.ServicePort{Port: 80, NodePort: 30080}, Nodes: nodes, Selector: sel})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Endpoints) != 1 || res.Endpoints[0].Target.Key() != "i-aaa:30080" || res.Endpoints[0].HashID != "i-aaa:30080:5000" {
		t.Fatalf("got %+v", res.Endpoints)
	}
	all, _ := ResolveInstance(InstanceInput{ServicePort: corev1.ServicePort{Port: 80, NodePort: 30080}, Nodes: nodes})
	if len(all.Endpoints) != 2 {
		t.Fatalf("no selector: %+v", all.Endpoints)
	}
	if _, err := ResolveInstance(InstanceInput{ServicePort: corev1.ServicePort{Port: 80}}); err == nil {
		t.Fatal("ClusterIP service accepted")
	}
}

// TestResolveIPHashesEveryListing: an IP:port listed in two slices is one target but two checkpoint
// identifiers, as the AWS Load Balancer Controller hashes it, so both controllers' checkpoints agree.
func TestResolveIPHashesEveryListing(t *testing.T) {
	p := pod("web-0", false, true)
	slice := discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Ports:     []discoveryv1.EndpointPort{{Name: ptr.To("http"), Port: ptr.To[int32](8080)}},
		Endpoints: []discoveryv1.Endpoint{ep("10.0.0.1", "web-0", ptr.To(true))}}
	res := ResolveIP(IPInput{
		ServicePort: corev1.ServicePort{Name: "http", Port: 80},
		Slices:      []discoveryv1.EndpointSlice{slice, slice}, AddressType: discoveryv1.AddressTypeIPv4,
		Pod: func(string) (*corev1.Pod, bool) { return p, true },
	})
	if len(res.Targets()) != 1 {
		t.Fatalf("targets %v: want the IP:port once", res.Targets())
	}
	id := "10.0.0.1:8080:100000"
	if got := res.HashIDs(); len(got) != 2 || got[0] != id || got[1] != id {
		t.Fatalf("hash identifiers %v: want %s twice", got, id)
	}
}

// TestResolveIPMatchesPortsByName: slice ports are matched to the Service port by name alone (the
// AWS Load Balancer Controller's rule); a Service port without a name takes every slice port.
func TestResolveIPMatchesPortsByName(t *testing.T) {
	p := pod("web-0", false, true)
	udp := corev1.ProtocolUDP
	slice := discoveryv1.EndpointSlice{AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{
			{Name: ptr.To("dns"), Port: ptr.To[int32](53), Protocol: &udp},
			{Name: ptr.To("metrics"), Port: ptr.To[int32](9153)},
		},
		Endpoints: []discoveryv1.Endpoint{ep("10.0.0.1", "web-0", ptr.To(true))}}
	for _, tc := range []struct {
		name string
		sp   corev1.ServicePort
		want []string
	}{
		{"name, protocol ignored", corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolTCP}, []string{"10.0.0.1:53"}},
		{"no name takes every port", corev1.ServicePort{Port: 53}, []string{"10.0.0.1:53", "10.0.0.1:9153"}},
		{"other name", corev1.ServicePort{Name: "http", Port: 80}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := ResolveIP(IPInput{ServicePort: tc.sp, Slices: []discoveryv1.EndpointSlice{slice},
				AddressType: discoveryv1.AddressTypeIPv4, Pod: func(string) (*corev1.Pod, bool) { return p, true }})
			var got []string
			for _, tg := range res.Targets() {
				got = append(got, tg.Key())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("targets %v, want %v", got, tc.want)
			}
		})
	}
}

package lbmodel

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func nlbService() corev1.Service {
	return corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "games", Name: "udp-echo", Annotations: map[string]string{
			AnnotationLBType: "external", AnnotationNLBTargetType: "ip", AnnotationServiceScheme: SchemeInternetFacing,
		}},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Ports: []corev1.ServicePort{
			{Name: "tcp", Port: 80, TargetPort: intstr.FromInt32(8080), Protocol: corev1.ProtocolTCP, NodePort: 31000},
			{Name: "udp", Port: 53, TargetPort: intstr.FromString("dns"), Protocol: corev1.ProtocolUDP, NodePort: 31001},
		}},
	}
}

func TestBuildServiceOneListenerAndTargetGroupPerPort(t *testing.T) {
	st, in, err := BuildService(ServiceInput{ClusterName: testCluster, Service: nlbService()})
	if err != nil {
		t.Fatal(err)
	}
	if st.ID != (StackID{Kind: KindService, Name: "games/udp-echo"}) || st.LoadBalancer.Type != TypeNetwork || st.LoadBalancer.Scheme != SchemeInternetFacing {
		t.Fatalf("stack = %+v", st)
	}
	if len(st.Listeners) != 2 || len(st.TargetGroups) != 2 || len(st.Bindings) != 2 {
		t.Fatalf("want 2 listeners, target groups and bindings; got %d %d %d", len(st.Listeners), len(st.TargetGroups), len(st.Bindings))
	}
	udp := st.TargetGroups[1]
	if udp.Protocol != "UDP" || udp.Port != 1 || udp.TargetType != "ip" || st.Listeners[1].DefaultAction.TargetGroupID != udp.ID {
		t.Fatalf("udp target group = %+v, listener = %+v", udp, st.Listeners[1])
	}
	if st.TargetGroups[0].Port != 8080 || len(udp.Name) > MaxNameLength {
		t.Fatalf("tcp target group = %+v", st.TargetGroups[0])
	}
	if udp.Tags["service.k8s.aws/stack"] != "games/udp-echo" || udp.Tags["service.k8s.aws/resource"] != "games/udp-echo:53" {
		t.Fatalf("tags = %v", udp.Tags)
	}
	h1, _ := Checkpoint(st, in)
	svc := nlbService()
	svc.Spec.Ports[0].TargetPort = intstr.FromInt32(8081)
	st2, in2, _ := BuildService(ServiceInput{ClusterName: testCluster, Service: svc})
	if h2, _ := Checkpoint(st2, in2); h1 == h2 {
		t.Fatal("checkpoint unchanged after a target port change")
	}
}

func TestBuildServiceRefusesOthers(t *testing.T) {
	svc := nlbService()
	delete(svc.Annotations, AnnotationLBType)
	if _, _, err := BuildService(ServiceInput{Service: svc}); err == nil {
		t.Fatal("want an error for a Service LBC would not manage")
	}
	svc = nlbService()
	svc.Annotations[AnnotationNLBTargetType] = ""
	st, _, err := BuildService(ServiceInput{Service: svc})
	if err != nil || st.TargetGroups[0].Port != 31000 {
		t.Fatalf("default instance targets: err %v, port %d, want the node port", err, st.TargetGroups[0].Port)
	}
}

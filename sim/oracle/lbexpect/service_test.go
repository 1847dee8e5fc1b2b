package lbexpect

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// nlbService is a Service of type LoadBalancer of LBC's load balancer class with ip targets, as the
// simulated fleet writes them.
func nlbService(ns, name string) corev1.Service {
	svc := service(ns, name, tcpPort(80, 8080))
	svc.Spec.Type, svc.Spec.LoadBalancerClass = corev1.ServiceTypeLoadBalancer, ptr.To("service.k8s.aws/nlb")
	svc.Annotations = map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "external",
		"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip",
		"service.beta.kubernetes.io/aws-load-balancer-scheme":          "internet-facing"}
	return svc
}

// A served Service is a network load balancer with a listener per port forwarding to that port's
// target group; LBC serves a Service by its load balancer class, or without one by its annotations.
func TestServiceIsANetworkLoadBalancer(t *testing.T) {
	fleet := nlbService("shop", "nlb")
	fleet.Spec.Ports = append(fleet.Spec.Ports, corev1.ServicePort{Name: "dns", Port: 53, Protocol: corev1.ProtocolUDP})
	fleet.Annotations["service.beta.kubernetes.io/aws-load-balancer-healthcheck-protocol"] = "http"
	fleet.Annotations["service.beta.kubernetes.io/aws-load-balancer-healthcheck-path"] = "/ready"

	// Instance targets by annotation, no scheme named (LBC keeps an existing load balancer's),
	// local traffic: kube-proxy's HTTP health check.
	local := service("shop", "local", corev1.ServicePort{Port: 443, NodePort: 30443, Protocol: corev1.ProtocolTCP})
	local.Spec.Type, local.Spec.ExternalTrafficPolicy = corev1.ServiceTypeLoadBalancer, corev1.ServiceExternalTrafficPolicyLocal
	local.Annotations = map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "external",
		"service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "instance"}

	internal := service("shop", "internal", tcpPort(80, 8080))
	internal.Spec.Type = corev1.ServiceTypeLoadBalancer
	internal.Annotations = map[string]string{"service.beta.kubernetes.io/aws-load-balancer-type": "nlb-ip",
		"service.beta.kubernetes.io/aws-load-balancer-internal": "true"}

	notServed := map[string]corev1.Service{"plain": service("shop", "plain", tcpPort(80, 8080))}
	s := nlbService("shop", "other-class")
	s.Spec.LoadBalancerClass = ptr.To("example.com/lb")
	notServed["other class"] = s
	s = nlbService("shop", "no-target-type")
	s.Spec.LoadBalancerClass = nil
	delete(s.Annotations, "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type")
	notServed["external without target type"] = s
	s = nlbService("shop", "deleting")
	s.DeletionTimestamp = &metav1.Time{Time: time.Unix(1, 0)}
	notServed["being deleted"] = s

	o := Objects{ClusterName: "sim", Services: []corev1.Service{fleet, local, internal}}
	for _, svc := range notServed {
		o.Services = append(o.Services, svc)
	}
	lbs, invalid := LoadBalancers(o)
	noInvalid(t, invalid)
	tg := func(resource, protocol, targetType, health string) []Action {
		return []Action{forward(TargetGroup{Resource: resource, Protocol: protocol, TargetType: targetType, HealthCheckPath: health})}
	}
	assertLBs(t, lbs, []LoadBalancer{
		{Cluster: "sim", Stack: Stack{Kind: ServiceStack, Name: "shop/nlb"}, Type: TypeNetwork, Scheme: SchemeInternetFacing,
			Listeners: []Listener{
				{Port: 53, Protocol: "UDP", DefaultActions: tg("shop/nlb:53", "UDP", "ip", "/ready")},
				{Port: 80, Protocol: "TCP", DefaultActions: tg("shop/nlb:80", "TCP", "ip", "/ready")},
			}},
		{Cluster: "sim", Stack: Stack{Kind: ServiceStack, Name: "shop/local"}, Type: TypeNetwork,
			Listeners: []Listener{{Port: 443, Protocol: "TCP", DefaultActions: tg("shop/local:443", "TCP", "instance", "/healthz")}}},
		{Cluster: "sim", Stack: Stack{Kind: ServiceStack, Name: "shop/internal"}, Type: TypeNetwork, Scheme: SchemeInternal,
			Listeners: []Listener{{Port: 80, Protocol: "TCP", DefaultActions: tg("shop/internal:80", "TCP", "ip", "")}}},
	})
}

// A served Service LBC cannot build a load balancer for is undeployable.
func TestInvalidServices(t *testing.T) {
	for name, edit := range map[string]func(*corev1.Service){
		"unknown scheme": func(s *corev1.Service) {
			s.Annotations["service.beta.kubernetes.io/aws-load-balancer-scheme"] = "public"
		},
		"instance without node port": func(s *corev1.Service) {
			s.Annotations["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] = "instance"
		},
		"unknown health protocol": func(s *corev1.Service) {
			s.Annotations["service.beta.kubernetes.io/aws-load-balancer-healthcheck-protocol"] = "grpc"
		},
		"no port": func(s *corev1.Service) { s.Spec.Ports = nil },
		"a port twice (TCP_UDP)": func(s *corev1.Service) {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 80, Protocol: corev1.ProtocolUDP})
		},
		"instance targets, ClusterIP": func(s *corev1.Service) {
			s.Spec.Type = corev1.ServiceTypeClusterIP
			s.Spec.LoadBalancerClass = nil
			s.Annotations["service.beta.kubernetes.io/aws-load-balancer-nlb-target-type"] = "instance"
		},
	} {
		t.Run(name, func(t *testing.T) {
			svc := nlbService("shop", "nlb")
			edit(&svc)
			lbs, invalid := LoadBalancers(Objects{ClusterName: "sim", Services: []corev1.Service{svc}})
			if len(lbs) != 0 || len(invalid) != 1 || invalid[0].Stack != (Stack{Kind: ServiceStack, Name: "shop/nlb"}) {
				t.Fatalf("load balancers %+v, invalid %+v; want shop/nlb invalid", lbs, invalid)
			}
		})
	}
}

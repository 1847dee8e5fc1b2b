package lbexpect

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// servedService reports whether LBC gives the Service a network load balancer: one not being
// deleted whose spec.loadBalancerClass is LBC's, or, without a class, whose annotations ask for an
// NLB with ip or instance targets (aws-load-balancer-type nlb-ip, or external with a target type).
func servedService(svc *corev1.Service) bool {
	if svc.DeletionTimestamp != nil {
		return false
	}
	if c := svc.Spec.LoadBalancerClass; c != nil {
		return *c == nlbLoadBalancerClass
	}
	switch svc.Annotations[annLBType] {
	case "nlb-ip":
		return true
	case "external":
		t := svc.Annotations[annNLBTargetType]
		return t == targetTypeIP || t == targetTypeInstance
	}
	return false
}

// ServiceTargetGroupResource is the resource tag value of the target group of a Service's port.
func ServiceTargetGroupResource(namespace, name string, port int32) string {
	return namespace + "/" + name + ":" + strconv.Itoa(int(port))
}

// serviceLoadBalancer is the network load balancer of a served Service: a listener per port of the
// port's protocol, forwarding to the port's target group.
func serviceLoadBalancer(cluster string, svc *corev1.Service) (LoadBalancer, error) {
	scheme, err := serviceScheme(svc)
	if err != nil {
		return LoadBalancer{}, err
	}
	targetType, err := serviceTargetType(svc)
	if err != nil {
		return LoadBalancer{}, err
	}
	health, err := serviceHealthCheckPath(svc, targetType)
	if err != nil {
		return LoadBalancer{}, err
	}
	lb := LoadBalancer{Cluster: cluster, Stack: serviceStack(svc), Type: TypeNetwork, Scheme: scheme}
	seen := map[int32]bool{}
	for _, p := range svc.Spec.Ports {
		if seen[p.Port] {
			return LoadBalancer{}, fmt.Errorf("port %d is listed twice (TCP_UDP listeners are not modelled)", p.Port)
		}
		seen[p.Port] = true
		if targetType == targetTypeInstance && p.NodePort == 0 {
			return LoadBalancer{}, fmt.Errorf("port %d has no node port, which instance targets need", p.Port)
		}
		protocol := strings.ToUpper(string(p.Protocol))
		if protocol == "" {
			protocol = string(corev1.ProtocolTCP)
		}
		tg := TargetGroup{Resource: ServiceTargetGroupResource(svc.Namespace, svc.Name, p.Port), Protocol: protocol,
			TargetType: targetType, HealthCheckPath: health}
		lb.Listeners = append(lb.Listeners, Listener{Port: p.Port, Protocol: protocol,
			DefaultActions: []Action{{Type: ActionForward, Forward: []TargetGroup{tg}}}})
	}
	if len(lb.Listeners) == 0 {
		return LoadBalancer{}, fmt.Errorf("service %s/%s has no port", svc.Namespace, svc.Name)
	}
	sortListeners(lb.Listeners)
	return lb, nil
}

// serviceScheme is the scheme the annotations name, by aws-load-balancer-scheme or the older
// aws-load-balancer-internal; "" when neither does, as LBC then keeps an existing load balancer's
// scheme (internal for a new one).
func serviceScheme(svc *corev1.Service) (string, error) {
	if s, ok := svc.Annotations[annNLBScheme]; ok {
		if s != SchemeInternal && s != SchemeInternetFacing {
			return "", fmt.Errorf("%s: unknown scheme %q", annNLBScheme, s)
		}
		return s, nil
	}
	if v, ok := svc.Annotations[annNLBInternal]; ok {
		internal, err := strconv.ParseBool(v)
		if err != nil {
			return "", fmt.Errorf("%s: %q is not a boolean", annNLBInternal, v)
		}
		if internal {
			return SchemeInternal, nil
		}
		return SchemeInternetFacing, nil
	}
	return "", nil
}

// serviceTargetType is ip for nlb-ip or an ip target type, else instance, which needs node ports.
func serviceTargetType(svc *corev1.Service) (string, error) {
	t := valueOr(targetTypeInstance, annNLBTargetType, svc.Annotations)
	if svc.Annotations[annLBType] == "nlb-ip" || t == targetTypeIP {
		return targetTypeIP, nil
	}
	if svc.Spec.Type == corev1.ServiceTypeClusterIP {
		return "", fmt.Errorf("a ClusterIP service cannot have %s targets", t)
	}
	return targetTypeInstance, nil
}

// serviceHealthCheckPath is the path of the target groups' health check, "" for a TCP check (the
// default, except for instance targets of a Service with local external traffic, which kube-proxy
// answers over HTTP on /healthz).
func serviceHealthCheckPath(svc *corev1.Service, targetType string) (string, error) {
	protocol, path := "TCP", defaultHealthCheckPath
	if targetType == targetTypeInstance && svc.Spec.Type == corev1.ServiceTypeLoadBalancer &&
		svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		protocol, path = "HTTP", localTrafficHealthCheck
	}
	switch p := strings.ToUpper(valueOr(protocol, annNLBHealthCheckProto, svc.Annotations)); p {
	case "TCP":
		return "", nil
	case "HTTP", "HTTPS":
		return valueOr(path, annNLBHealthCheckPath, svc.Annotations), nil
	default:
		return "", fmt.Errorf("%s: unknown protocol %q", annNLBHealthCheckProto, p)
	}
}

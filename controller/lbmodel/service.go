package lbmodel

import (
	"fmt"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// ServiceInput is what the NLB model of a Service of type LoadBalancer reads.
type ServiceInput struct {
	ClusterName string
	Service     corev1.Service
}

// ManagesService reports whether the Service is one LBC would give an NLB: type LoadBalancer with
// aws-load-balancer-type external (or nlb-ip, the older spelling).
func ManagesService(svc *corev1.Service) bool {
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return false
	}
	t := svc.Annotations[AnnotationLBType]
	return t == "external" || t == "nlb-ip"
}

// BuildService builds the NLB stack of a Service: one listener and one target group per service port.
func BuildService(in ServiceInput) (Stack, Inputs, error) {
	svc := &in.Service
	if !ManagesService(svc) {
		return Stack{}, Inputs{}, fmt.Errorf("service %s/%s is not type LoadBalancer with %s: external", svc.Namespace, svc.Name, AnnotationLBType)
	}
	id := StackID{Kind: KindService, Name: svc.Namespace + "/" + svc.Name}
	lb, err := serviceLoadBalancer(in, id)
	if err != nil {
		return Stack{}, Inputs{}, err
	}
	stack := Stack{ID: id, LoadBalancer: lb}
	targetType := firstSet(svc.Annotations[AnnotationNLBTargetType], "instance")
	if svc.Annotations[AnnotationLBType] == "nlb-ip" {
		targetType = "ip"
	}
	if err := oneOf(AnnotationNLBTargetType, targetType, "instance", "ip"); err != nil {
		return Stack{}, Inputs{}, err
	}
	user, err := parseKeyValues(AnnotationServiceTags, svc.Annotations[AnnotationServiceTags])
	if err != nil {
		return Stack{}, Inputs{}, err
	}
	for _, sp := range svc.Spec.Ports {
		tg, err := serviceTargetGroup(in, id, sp, targetType, user)
		if err != nil {
			return Stack{}, Inputs{}, err
		}
		stack.TargetGroups = append(stack.TargetGroups, tg)
		stack.Listeners = append(stack.Listeners, Listener{
			Port: sp.Port, Protocol: tg.Protocol, DefaultAction: Action{Type: ActionForward, TargetGroupID: tg.ID},
		})
		stack.Bindings = append(stack.Bindings, Binding{
			Name: tg.Name, Namespace: svc.Namespace, ServiceName: svc.Name, ServicePort: intstr.FromInt32(sp.Port),
			TargetGroupID: tg.ID, TargetType: targetType,
		})
	}
	if len(stack.Listeners) == 0 {
		return Stack{}, Inputs{}, fmt.Errorf("service %s/%s has no port", svc.Namespace, svc.Name)
	}
	return stack, Inputs{Services: []*corev1.Service{svc}}, nil
}

func serviceLoadBalancer(in ServiceInput, id StackID) (LoadBalancer, error) {
	svc := &in.Service
	scheme := firstSet(svc.Annotations[AnnotationServiceScheme], SchemeInternal)
	if err := oneOf(AnnotationServiceScheme, scheme, SchemeInternal, SchemeInternetFacing); err != nil {
		return LoadBalancer{}, err
	}
	ipType := firstSet(svc.Annotations[AnnotationServiceIPAddressType], "ipv4")
	if err := oneOf(AnnotationServiceIPAddressType, ipType, "ipv4", "dualstack"); err != nil {
		return LoadBalancer{}, err
	}
	user, err := parseKeyValues(AnnotationServiceTags, svc.Annotations[AnnotationServiceTags])
	if err != nil {
		return LoadBalancer{}, err
	}
	attrs, err := parseKeyValues(AnnotationServiceLBAttributes, svc.Annotations[AnnotationServiceLBAttributes])
	if err != nil {
		return LoadBalancer{}, err
	}
	lb := LoadBalancer{
		Name: resourceName(svc.Namespace, svc.Name, in.ClusterName, id.Name, scheme),
		Type: TypeNetwork, Scheme: scheme, IPAddressType: ipType, Attributes: attrs,
		Subnets: SubnetSelector{IDs: parseList(svc.Annotations[AnnotationServiceSubnets])},
		Tags:    stackTags(user, in.ClusterName, id, TagLoadBalancerResource),
	}
	if len(lb.Subnets.IDs) == 0 {
		lb.Subnets.Tags = subnetDiscoveryTags(scheme)
	}
	return lb, nil
}

func serviceTargetGroup(in ServiceInput, id StackID, sp corev1.ServicePort, targetType string, user map[string]string) (TargetGroup, error) {
	svc := &in.Service
	protocol := strings.ToUpper(string(sp.Protocol))
	if protocol == "" {
		protocol = "TCP"
	}
	if err := oneOf("service port protocol", protocol, "TCP", "UDP"); err != nil {
		return TargetGroup{}, err
	}
	port, err := targetGroupPort(svc, sp, targetType)
	if err != nil {
		return TargetGroup{}, err
	}
	attrs, err := parseKeyValues(AnnotationServiceTGAttributes, svc.Annotations[AnnotationServiceTGAttributes])
	if err != nil {
		return TargetGroup{}, err
	}
	// Interval and thresholds are LBC's NLB defaults; LBC's timeout equals the interval (10 s), which an ELBv2
	// validation that wants the timeout below the interval refuses, so the timeout is AWS's 6 s for NLB checks.
	hc := HealthCheck{Protocol: "TCP", Port: "traffic-port", IntervalSeconds: 10, TimeoutSeconds: 6, HealthyThreshold: 3, UnhealthyThreshold: 3}
	if hp := firstSet(svc.Annotations[AnnotationServiceHealthProtocol], "TCP"); strings.EqualFold(hp, "HTTP") || strings.EqualFold(hp, "HTTPS") {
		hc.Protocol, hc.Path, hc.Matcher = strings.ToUpper(hp), firstSet(svc.Annotations[AnnotationServiceHealthPath], "/"), "200-399"
	}
	tgID := svc.Namespace + "/" + svc.Name + ":" + strconv.Itoa(int(sp.Port))
	return TargetGroup{
		ID: tgID, Protocol: protocol, Port: port, TargetType: targetType, HealthCheck: hc, Attributes: attrs,
		Name: resourceName(svc.Namespace, svc.Name, in.ClusterName, id.Name, tgID, protocol, strconv.Itoa(int(port)), targetType),
		Tags: stackTags(user, in.ClusterName, id, tgID),
	}, nil
}

package lbmodel

import (
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// annotationAction is the JSON of an actions.<name> annotation (LBC's format), for the kinds supported here.
type annotationAction struct {
	Type                string         `json:"type"`
	FixedResponseConfig *FixedResponse `json:"fixedResponseConfig"`
	RedirectConfig      *Redirect      `json:"redirectConfig"`
	ForwardConfig       *struct {
		TargetGroups []struct {
			ServiceName string             `json:"serviceName"`
			ServicePort intstr.IntOrString `json:"servicePort"`
		} `json:"targetGroups"`
	} `json:"forwardConfig"`
}

// backendAction is the final action of a path: forward to the backend Service's target group, or the action
// named by the actions.<service name> annotation when the port name is use-annotation.
func (b *ingressBuilder) backendAction(ing *networkingv1.Ingress, be networkingv1.IngressBackend) (Action, error) {
	if be.Service == nil {
		return Action{}, fmt.Errorf("backend without a service (resource backends are not supported)")
	}
	if be.Service.Port.Name == UseAnnotation {
		return b.annotatedAction(ing, be.Service.Name)
	}
	port := intstr.FromInt32(be.Service.Port.Number)
	if be.Service.Port.Name != "" {
		port = intstr.FromString(be.Service.Port.Name)
	}
	id, err := b.targetGroup(ing, be.Service.Name, port)
	if err != nil {
		return Action{}, err
	}
	return Action{Type: ActionForward, TargetGroupID: id}, nil
}

func (b *ingressBuilder) annotatedAction(ing *networkingv1.Ingress, name string) (Action, error) {
	key := AnnotationActionPrefix + name
	raw, ok := ing.Annotations[key]
	if !ok {
		return Action{}, fmt.Errorf("backend %s uses %s, which is not set", name, key)
	}
	var a annotationAction
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return Action{}, fmt.Errorf("%s: %w", key, err)
	}
	switch {
	case a.Type == ActionFixedResponse && a.FixedResponseConfig != nil:
		return Action{Type: ActionFixedResponse, FixedResponse: a.FixedResponseConfig}, nil
	case a.Type == ActionRedirect && a.RedirectConfig != nil:
		return Action{Type: ActionRedirect, Redirect: a.RedirectConfig}, nil
	case a.Type == ActionForward && a.ForwardConfig != nil && len(a.ForwardConfig.TargetGroups) == 1:
		tg := a.ForwardConfig.TargetGroups[0]
		id, err := b.targetGroup(ing, tg.ServiceName, tg.ServicePort)
		if err != nil {
			return Action{}, err
		}
		return Action{Type: ActionForward, TargetGroupID: id}, nil
	}
	return Action{}, fmt.Errorf("%s: only fixed-response, redirect and forward to one service are supported", key)
}

// targetGroup adds the target group of (ing, service, port) once and returns its model ID.
// IngressTargetGroupID is the model ID, and so the resource tag value, of the target group an
// Ingress's backend svcName:port forwards to, in LBC's form namespace/ingress-service:port.
func IngressTargetGroupID(namespace, ingress, svcName string, port intstr.IntOrString) string {
	return namespace + "/" + ingress + "-" + svcName + ":" + port.String()
}

func (b *ingressBuilder) targetGroup(ing *networkingv1.Ingress, svcName string, port intstr.IntOrString) (string, error) {
	id := IngressTargetGroupID(ing.Namespace, ing.Name, svcName, port)
	if _, ok := b.tgs[id]; ok {
		return id, nil
	}
	svc, ok := b.services[ing.Namespace+"/"+svcName]
	if !ok {
		return "", fmt.Errorf("service %s/%s not found", ing.Namespace, svcName)
	}
	b.read.addService(svc)
	sp, err := servicePort(svc, port)
	if err != nil {
		return "", err
	}
	targetType := firstSet(ing.Annotations[AnnotationTargetType], "instance")
	if err := oneOf(AnnotationTargetType, targetType, "instance", "ip"); err != nil {
		return "", err
	}
	tgPort, err := targetGroupPort(svc, sp, targetType)
	if err != nil {
		return "", err
	}
	protocol := firstSet(ing.Annotations[AnnotationBackendProto], "HTTP")
	if err := oneOf(AnnotationBackendProto, protocol, "HTTP", "HTTPS"); err != nil {
		return "", err
	}
	attrs, err := parseKeyValues(AnnotationTGAttributes, ing.Annotations[AnnotationTGAttributes])
	if err != nil {
		return "", err
	}
	tg := TargetGroup{
		ID: id, Protocol: protocol, Port: tgPort, TargetType: targetType, Attributes: attrs,
		HealthCheck: HealthCheck{
			Protocol: protocol, Port: "traffic-port", Path: firstSet(ing.Annotations[AnnotationHealthPath], "/"),
			Matcher:         firstSet(ing.Annotations[AnnotationSuccessCodes], "200"),
			IntervalSeconds: 15, TimeoutSeconds: 5, HealthyThreshold: 2, UnhealthyThreshold: 2,
		},
	}
	tg.Name = resourceName(ing.Namespace, svcName, b.in.ClusterName, b.stack.ID.Name, id, protocol, strconv.Itoa(int(tgPort)), targetType)
	tg.Tags = b.tags(b.userTags, id)
	b.tgs[id] = tg
	b.stack.Bindings = append(b.stack.Bindings, Binding{
		Name: tg.Name, Namespace: ing.Namespace, ServiceName: svcName, ServicePort: port, TargetGroupID: id, TargetType: targetType,
	})
	return id, nil
}

// servicePort finds the Service port by number or by name.
func servicePort(svc *corev1.Service, port intstr.IntOrString) (corev1.ServicePort, error) {
	for _, p := range svc.Spec.Ports {
		if (port.Type == intstr.Int && p.Port == port.IntVal) || (port.Type == intstr.String && p.Name == port.StrVal) {
			return p, nil
		}
	}
	return corev1.ServicePort{}, fmt.Errorf("service %s/%s has no port %s", svc.Namespace, svc.Name, port.String())
}

// targetGroupPort is the port a target group is created with: the node port for instance targets; for IP
// targets a numeric target port, else 1 as LBC does (the binding registers each pod on its own port anyway).
func targetGroupPort(svc *corev1.Service, sp corev1.ServicePort, targetType string) (int32, error) {
	if targetType == "instance" {
		if sp.NodePort == 0 {
			return 0, fmt.Errorf("service %s/%s port %d has no node port, which instance targets need", svc.Namespace, svc.Name, sp.Port)
		}
		return sp.NodePort, nil
	}
	if sp.TargetPort.Type == intstr.Int && sp.TargetPort.IntVal > 0 {
		return sp.TargetPort.IntVal, nil
	}
	if sp.TargetPort.Type == intstr.String && sp.TargetPort.StrVal != "" {
		return 1, nil
	}
	return sp.Port, nil // an unset target port defaults to the port
}

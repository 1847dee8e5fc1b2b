package lbexpect

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The message bodies of the 503 LBC answers with for a backend that does not exist.
const (
	missingServiceBody = "Backend service does not exist"
	missingActionBody  = "Backend action does not exist"
)

// backendActions are the actions of an Ingress backend on a listener of protocol: on HTTPS the
// authentication the annotations ask for, then the backend's own action.
func (idx *objectIndex) backendActions(ing *networkingv1.Ingress, be networkingv1.IngressBackend, protocol string) ([]Action, error) {
	if be.Service == nil {
		return nil, errors.New("backend without a service")
	}
	act, svc, err := idx.backendAction(ing, be.Service)
	if err != nil {
		return nil, err
	}
	if protocol != "HTTPS" {
		return []Action{act}, nil
	}
	// Authentication follows the Ingress's annotations, with a single forwarded Service's
	// annotations taking precedence.
	sources := []map[string]string{ing.Annotations}
	if svc != nil {
		sources = []map[string]string{svc.Annotations, ing.Annotations}
	}
	auth, err := idx.authAction(ing.Namespace, sources)
	if err != nil {
		return nil, err
	}
	if auth == nil {
		return []Action{act}, nil
	}
	return []Action{*auth, act}, nil
}

// backendAction is the action a backend asks for, and the Service when it forwards to exactly one.
// A forward to one Service that does not exist is a fixed 503, as is a use-annotation backend
// whose annotation is missing: LBC tolerates both by default.
func (idx *objectIndex) backendAction(ing *networkingv1.Ingress, be *networkingv1.IngressServiceBackend) (Action, *corev1.Service, error) {
	var targets []annotationTargetGroup
	switch be.Port.Name {
	case useAnnotation:
		raw, ok := ing.Annotations[annActionPrefix+be.Name]
		if !ok {
			return fixed503(missingActionBody), nil, nil
		}
		a, err := parseAction(be.Name, raw)
		if err != nil {
			return Action{}, nil, err
		}
		if a.done.Type != "" {
			return a.done, nil, nil
		}
		targets = a.targets
	default:
		port := intstr.FromInt32(be.Port.Number)
		if be.Port.Name != "" {
			port = intstr.FromString(be.Port.Name)
		}
		targets = []annotationTargetGroup{{ServiceName: &be.Name, ServicePort: &port}}
	}
	if len(targets) == 1 && targets[0].ServiceName != nil {
		if _, ok := idx.services[ing.Namespace+"/"+*targets[0].ServiceName]; !ok {
			return fixed503(missingServiceBody), nil, nil
		}
	}
	act := Action{Type: ActionForward}
	var single *corev1.Service
	for _, t := range targets {
		switch {
		case t.TargetGroupARN != nil:
			act.Forward = append(act.Forward, TargetGroup{ARN: *t.TargetGroupARN})
		case t.TargetGroupName != nil:
			act.Forward = append(act.Forward, TargetGroup{Name: *t.TargetGroupName})
		default:
			svc, ok := idx.services[ing.Namespace+"/"+*t.ServiceName]
			if !ok {
				return Action{}, nil, fmt.Errorf("service %s/%s not found", ing.Namespace, *t.ServiceName)
			}
			tg, err := ingressTargetGroup(ing, svc, intstr.Parse(t.ServicePort.String()))
			if err != nil {
				return Action{}, nil, err
			}
			act.Forward = append(act.Forward, tg)
			single = svc
		}
	}
	if len(targets) != 1 {
		single = nil
	}
	return act, single, nil
}

func fixed503(body string) Action {
	return Action{Type: ActionFixedResponse, FixedResponse: &FixedResponse{StatusCode: "503", ContentType: "text/plain", MessageBody: body}}
}

// parsedAction is an actions.<name> annotation: a finished action, or a forward's targets.
type parsedAction struct {
	done    Action
	targets []annotationTargetGroup
}

func parseAction(name, raw string) (parsedAction, error) {
	key := annActionPrefix + name
	var a annotationAction
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return parsedAction{}, fmt.Errorf("%s: %w", key, err)
	}
	switch a.Type {
	case ActionFixedResponse:
		c := a.FixedResponseConfig
		if c == nil || c.StatusCode == "" {
			return parsedAction{}, fmt.Errorf("%s: fixed-response needs fixedResponseConfig.statusCode", key)
		}
		return parsedAction{done: Action{Type: ActionFixedResponse, FixedResponse: &FixedResponse{StatusCode: c.StatusCode,
			ContentType: deref(c.ContentType, ""), MessageBody: deref(c.MessageBody, "")}}}, nil
	case ActionRedirect:
		c := a.RedirectConfig
		if c == nil || c.StatusCode == "" {
			return parsedAction{}, fmt.Errorf("%s: redirect needs redirectConfig.statusCode", key)
		}
		// The parts a redirect does not set keep the request's, as ELBv2 spells them.
		return parsedAction{done: Action{Type: ActionRedirect, Redirect: &Redirect{StatusCode: c.StatusCode,
			Protocol: deref(c.Protocol, "#{protocol}"), Port: deref(c.Port, "#{port}"), Host: deref(c.Host, "#{host}"),
			Path: deref(c.Path, "/#{path}"), Query: deref(c.Query, "#{query}")}}}, nil
	case ActionForward:
		if a.TargetGroupARN != nil || a.TargetGroupName != nil {
			return parsedAction{targets: []annotationTargetGroup{{TargetGroupARN: a.TargetGroupARN, TargetGroupName: a.TargetGroupName}}}, nil
		}
		if a.ForwardConfig == nil || len(a.ForwardConfig.TargetGroups) == 0 {
			return parsedAction{}, fmt.Errorf("%s: forward needs forwardConfig.targetGroups", key)
		}
		tgs := a.ForwardConfig.TargetGroups
		for _, t := range tgs {
			named := t.TargetGroupARN != nil || t.TargetGroupName != nil
			if named == (t.ServiceName != nil) || t.ServiceName != nil && t.ServicePort == nil {
				return parsedAction{}, fmt.Errorf("%s: each target group needs either serviceName and servicePort or targetGroupARN/Name", key)
			}
			if len(tgs) > 1 && t.Weight == nil {
				return parsedAction{}, fmt.Errorf("%s: a forward to several target groups needs their weights", key)
			}
		}
		return parsedAction{targets: tgs}, nil
	}
	return parsedAction{}, fmt.Errorf("%s: unknown action type %q", key, a.Type)
}

func deref(p *string, def string) string {
	if p == nil {
		return def
	}
	return *p
}

// IngressTargetGroupResource is the resource tag value of the target group an Ingress's backend
// svc:port forwards to (a port by number or name).
func IngressTargetGroupResource(namespace, ingress, svc, port string) string {
	return namespace + "/" + ingress + "-" + svc + ":" + port
}

// ingressTargetGroup is the target group of the Ingress's backend svc:port. Its settings come from
// the Service's annotations before the Ingress's.
func ingressTargetGroup(ing *networkingv1.Ingress, svc *corev1.Service, port intstr.IntOrString) (TargetGroup, error) {
	sp, ok := servicePort(svc, port)
	if !ok {
		return TargetGroup{}, fmt.Errorf("service %s/%s has no port %s", svc.Namespace, svc.Name, port.String())
	}
	ann := []map[string]string{svc.Annotations, ing.Annotations}
	tg := TargetGroup{
		Resource:   IngressTargetGroupResource(ing.Namespace, ing.Name, svc.Name, port.String()),
		TargetType: valueOr(targetTypeInstance, annTargetType, ann...),
		Protocol:   valueOr("HTTP", annBackendProtocol, ann...),
	}
	if tg.TargetType != targetTypeInstance && tg.TargetType != targetTypeIP {
		return TargetGroup{}, fmt.Errorf("%s: unknown target type %q", annTargetType, tg.TargetType)
	}
	if tg.TargetType == targetTypeInstance && sp.NodePort == 0 {
		return TargetGroup{}, fmt.Errorf("service %s/%s port %s has no node port, which instance targets need", svc.Namespace, svc.Name, port.String())
	}
	if tg.Protocol != "HTTP" && tg.Protocol != "HTTPS" {
		return TargetGroup{}, fmt.Errorf("%s: unknown protocol %q", annBackendProtocol, tg.Protocol)
	}
	version := valueOr("HTTP1", annBackendProtocolVersion, ann...)
	switch version {
	case "HTTP1", "HTTP2":
		tg.HealthCheckPath = valueOr(defaultHealthCheckPath, annHealthCheckPath, ann...)
	case "GRPC":
		tg.HealthCheckPath = valueOr(grpcHealthCheckPath, annHealthCheckPath, ann...)
	default:
		return TargetGroup{}, fmt.Errorf("%s: unknown protocol version %q", annBackendProtocolVersion, version)
	}
	return tg, nil
}

// servicePort finds a Service's port by number or by name.
func servicePort(svc *corev1.Service, port intstr.IntOrString) (corev1.ServicePort, bool) {
	for _, p := range svc.Spec.Ports {
		if port.Type == intstr.Int && p.Port == port.IntVal || port.Type == intstr.String && p.Name == port.StrVal {
			return p, true
		}
	}
	return corev1.ServicePort{}, false
}

// authAction is the authenticate action the annotations in sources (the first holding a key wins)
// ask for, nil for none.
func (idx *objectIndex) authAction(namespace string, sources []map[string]string) (*Action, error) {
	switch t := valueOr("none", annAuthType, sources...); t {
	case "none":
		return nil, nil
	case "oidc":
	default:
		return nil, fmt.Errorf("%s %q is not modelled (none, oidc)", annAuthType, t)
	}
	raw, ok := lookup(annAuthIDPOIDC, sources...)
	if !ok {
		return nil, fmt.Errorf("auth-type oidc without %s", annAuthIDPOIDC)
	}
	var cfg oidcAnnotation
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", annAuthIDPOIDC, err)
	}
	sec, ok := idx.secrets[namespace+"/"+cfg.SecretName]
	if !ok {
		return nil, fmt.Errorf("secret %s/%s of %s not found", namespace, cfg.SecretName, annAuthIDPOIDC)
	}
	id, ok := sec.Data[oidcSecretClientID]
	if !ok {
		id, ok = sec.Data[oidcSecretClientIDOld]
	}
	secret, hasSecret := sec.Data[oidcSecretClientSecret]
	if !ok || !hasSecret {
		return nil, fmt.Errorf("secret %s/%s needs the keys %s and %s", namespace, cfg.SecretName, oidcSecretClientID, oidcSecretClientSecret)
	}
	timeout := int64(604800)
	if v, ok := lookup(annAuthSessionTimeout, sources...); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an integer", annAuthSessionTimeout, v)
		}
		timeout = n
	}
	return &Action{Type: ActionAuthenticateOIDC, OIDC: &OIDC{
		Issuer: cfg.Issuer, AuthorizationEndpoint: cfg.AuthorizationEndpoint, TokenEndpoint: cfg.TokenEndpoint,
		UserInfoEndpoint: cfg.UserInfoEndpoint,
		// LBC trims trailing white space off the client ID, trailing control characters off the secret.
		ClientID:                 strings.TrimRightFunc(string(id), unicode.IsSpace),
		ClientSecret:             strings.TrimRightFunc(string(secret), unicode.IsControl),
		Scope:                    valueOr("openid", annAuthScope, sources...),
		SessionCookieName:        valueOr("AWSELBAuthSessionCookie", annAuthSessionCookie, sources...),
		SessionTimeout:           timeout,
		OnUnauthenticatedRequest: valueOr("authenticate", annAuthOnUnauthenticated, sources...),
	}}, nil
}

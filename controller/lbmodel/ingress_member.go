package lbmodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// member adds one Ingress's listeners, rules and target groups to the stack.
func (b *ingressBuilder) member(ing *networkingv1.Ingress) error {
	ports, err := b.listenPorts(ing)
	if err != nil {
		return err
	}
	auth, err := b.oidcAction(ing)
	if err != nil {
		return err
	}
	certs := parseList(ing.Annotations[AnnotationCertificateARN])
	if len(certs) == 0 && len(ing.Spec.TLS) > 0 {
		// LBC would look the TLS hosts up in ACM; the reference controller has no ACM client, so say what to set instead.
		return fmt.Errorf("spec.tls without %s: certificate discovery by TLS host needs ACM, set the annotation", AnnotationCertificateARN)
	}
	for _, lp := range ports {
		l, err := b.listener(ing, lp, certs)
		if err != nil {
			return err
		}
		var pre []Action
		if auth != nil && lp.Protocol == "HTTPS" { // LBC authenticates on HTTPS listeners only
			pre = []Action{*auth}
		}
		if err := b.rules(ing, l, pre); err != nil {
			return err
		}
		if ing.Spec.DefaultBackend != nil && l.DefaultAction.Type == "" {
			act, err := b.backendAction(ing, *ing.Spec.DefaultBackend)
			if err != nil {
				return fmt.Errorf("default backend: %w", err)
			}
			l.DefaultAction = act
		}
	}
	return nil
}

func (b *ingressBuilder) listenPorts(ing *networkingv1.Ingress) ([]listenPort, error) {
	if v := ing.Annotations[AnnotationListenPorts]; v != "" {
		return parseListenPorts(v)
	}
	if ing.Annotations[AnnotationCertificateARN] != "" {
		return []listenPort{{Protocol: "HTTPS", Port: 443}}, nil
	}
	return []listenPort{{Protocol: "HTTP", Port: 80}}, nil
}

// listener returns the stack's listener on lp.Port, creating it; members must agree on its protocol.
func (b *ingressBuilder) listener(ing *networkingv1.Ingress, lp listenPort, certs []string) (*Listener, error) {
	l, ok := b.listeners[lp.Port]
	if !ok {
		l = &Listener{Port: lp.Port, Protocol: lp.Protocol}
		b.listeners[lp.Port] = l
	}
	if l.Protocol != lp.Protocol {
		return nil, fmt.Errorf("listener port %d is %s here and %s in another group member", lp.Port, lp.Protocol, l.Protocol)
	}
	if lp.Protocol != "HTTPS" {
		return l, nil
	}
	if len(certs) == 0 && len(l.Certificates) == 0 {
		return nil, fmt.Errorf("HTTPS listener %d needs %s", lp.Port, AnnotationCertificateARN)
	}
	for _, c := range certs {
		if !slices.Contains(l.Certificates, c) {
			l.Certificates = append(l.Certificates, c)
		}
	}
	if p := ing.Annotations[AnnotationSslPolicy]; p != "" {
		l.SslPolicy = p
	} else if l.SslPolicy == "" {
		l.SslPolicy = "ELBSecurityPolicy-2016-08" // LBC's default
	}
	return l, nil
}

// rules appends one rule per host and path of ing to listener l, priorities continuing the listener's count.
func (b *ingressBuilder) rules(ing *networkingv1.Ingress, l *Listener, pre []Action) error {
	next := int32(1)
	for _, r := range b.stack.Rules {
		if r.ListenerPort == l.Port && r.Priority >= next {
			next = r.Priority + 1
		}
	}
	for _, rule := range ing.Spec.Rules {
		if rule.HTTP == nil {
			continue
		}
		for _, p := range rulePathOrder(rule.HTTP.Paths) {
			act, err := b.backendAction(ing, p.Backend)
			if err != nil {
				return fmt.Errorf("path %q: %w", p.Path, err)
			}
			var conds []Condition
			if rule.Host != "" {
				conds = append(conds, Condition{Field: FieldHostHeader, Values: []string{rule.Host}})
			}
			conds = append(conds, Condition{Field: FieldPathPattern, Values: pathPatterns(p)})
			actions := append(append([]Action(nil), pre...), act)
			b.stack.Rules = append(b.stack.Rules, Rule{ListenerPort: l.Port, Priority: next, Conditions: conds, Actions: actions})
			next++
		}
	}
	return nil
}

// rulePathOrder is the order LBC gives a rule's paths, and so their listener rules' priorities: Exact
// paths, then Prefix paths longest first, then the rest, each kind otherwise as written. The first
// matching rule wins, so in the order written a Prefix /a before /a/b would take /a/b's requests.
func rulePathOrder(paths []networkingv1.HTTPIngressPath) []networkingv1.HTTPIngressPath {
	rank := func(p networkingv1.HTTPIngressPath) int {
		switch {
		case p.PathType != nil && *p.PathType == networkingv1.PathTypeExact:
			return 0
		case p.PathType != nil && *p.PathType == networkingv1.PathTypePrefix:
			return 1
		}
		return 2
	}
	out := slices.Clone(paths)
	slices.SortStableFunc(out, func(a, b networkingv1.HTTPIngressPath) int {
		if ra, rb := rank(a), rank(b); ra != rb || ra != 1 {
			return ra - rb
		}
		return len(b.Path) - len(a.Path)
	})
	return out
}

// pathPatterns converts an Ingress path to ALB path patterns as LBC does: Prefix /a matches /a and /a/*.
func pathPatterns(p networkingv1.HTTPIngressPath) []string {
	path := p.Path
	if path == "" {
		path = "/"
	}
	if p.PathType == nil || *p.PathType == networkingv1.PathTypeImplementationSpecific {
		if path == "/" {
			return []string{"/*"}
		}
		return []string{path}
	}
	if *p.PathType == networkingv1.PathTypeExact {
		return []string{path}
	}
	if path == "/" {
		return []string{"/*"}
	}
	path = strings.TrimSuffix(path, "/")
	return []string{path, path + "/*"}
}

// oidcAction reads auth-type oidc and its auth-idp-oidc Secret; nil when the Ingress does not authenticate.
func (b *ingressBuilder) oidcAction(ing *networkingv1.Ingress) (*Action, error) {
	switch ing.Annotations[AnnotationAuthType] {
	case "", "none":
		return nil, nil
	case "oidc":
	default:
		return nil, fmt.Errorf("%s %q is not supported (none, oidc)", AnnotationAuthType, ing.Annotations[AnnotationAuthType])
	}
	var cfg OIDCAnnotation
	if err := json.Unmarshal([]byte(ing.Annotations[AnnotationAuthIDPOIDC]), &cfg); err != nil {
		return nil, fmt.Errorf("%s: %w", AnnotationAuthIDPOIDC, err)
	}
	if cfg.Issuer == "" || cfg.AuthorizationEndpoint == "" || cfg.TokenEndpoint == "" || cfg.UserInfoEndpoint == "" || cfg.SecretName == "" {
		return nil, fmt.Errorf("%s: issuer, authorizationEndpoint, tokenEndpoint, userInfoEndpoint and secretName are required", AnnotationAuthIDPOIDC)
	}
	sec, ok := b.secrets[ing.Namespace+"/"+cfg.SecretName]
	if !ok {
		return nil, fmt.Errorf("secret %s/%s (%s) not found", ing.Namespace, cfg.SecretName, AnnotationAuthIDPOIDC)
	}
	b.read.addSecret(sec)
	id, secret := strings.TrimSpace(string(sec.Data[OIDCClientIDKey])), strings.TrimSpace(string(sec.Data[OIDCClientSecretKey]))
	if id == "" || secret == "" {
		return nil, fmt.Errorf("secret %s/%s needs the keys clientID and clientSecret", ing.Namespace, cfg.SecretName)
	}
	a := &AuthenticateOIDC{
		Issuer: cfg.Issuer, AuthorizationEndpoint: cfg.AuthorizationEndpoint, TokenEndpoint: cfg.TokenEndpoint,
		UserInfoEndpoint: cfg.UserInfoEndpoint, ClientID: id, ClientSecret: secret,
		Scope:                    firstSet(ing.Annotations[AnnotationAuthScope], "openid"),
		SessionCookieName:        firstSet(ing.Annotations[AnnotationAuthCookie], "AWSELBAuthSessionCookie"),
		OnUnauthenticatedRequest: firstSet(ing.Annotations[AnnotationAuthOnUnauth], "authenticate"),
		SessionTimeout:           604800,
	}
	if v := ing.Annotations[AnnotationAuthTimeout]; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a positive integer", AnnotationAuthTimeout, v)
		}
		a.SessionTimeout = n
	}
	return &Action{Type: ActionAuthenticateOIDC, AuthenticateOIDC: a}, nil
}

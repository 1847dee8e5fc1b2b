package lbexpect

import (
	"fmt"
	"slices"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
)

// ingressGroup is the application load balancer of group g; classScheme, when set, is every
// member's scheme.
func (idx *objectIndex) ingressGroup(g ingressGroup, classScheme string) (LoadBalancer, error) {
	scheme, err := groupScheme(g.members, classScheme)
	if err != nil {
		return LoadBalancer{}, err
	}
	ports, err := groupListenPorts(g.members)
	if err != nil {
		return LoadBalancer{}, err
	}
	lb := LoadBalancer{Cluster: idx.cluster, Stack: g.stack, Type: TypeApplication, Scheme: scheme}
	for _, p := range ports {
		l, err := idx.listener(p)
		if err != nil {
			return LoadBalancer{}, err
		}
		lb.Listeners = append(lb.Listeners, l)
	}
	return lb, nil
}

// groupScheme is the one scheme the members name (internal when none does); two are an error.
func groupScheme(members []*networkingv1.Ingress, classScheme string) (string, error) {
	named := map[string]bool{}
	for _, m := range members {
		if classScheme != "" {
			named[classScheme] = true
		} else if s, ok := m.Annotations[annScheme]; ok {
			named[s] = true
		}
	}
	switch len(named) {
	case 0:
		return SchemeInternal, nil
	case 1:
	default:
		return "", fmt.Errorf("conflicting schemes %v", mapKeys(named))
	}
	for s := range named {
		if s != SchemeInternal && s != SchemeInternetFacing {
			return "", fmt.Errorf("unknown scheme %q", s)
		}
		return s, nil
	}
	return "", nil
}

// listenPort is one listener port of a group and the members that listen on it, in group order.
type listenPort struct {
	port     int32
	protocol string
	members  []*networkingv1.Ingress
}

// groupListenPorts are the group's listener ports, ascending. A member without listen-ports listens
// on HTTPS 443 when it names a certificate, else on HTTP 80; members must agree on a port's protocol.
func groupListenPorts(members []*networkingv1.Ingress) ([]listenPort, error) {
	byPort := map[int32]*listenPort{}
	for _, m := range members {
		ports := map[int32]string{80: "HTTP"}
		if v, ok := m.Annotations[annListenPorts]; ok {
			var err error
			if ports, err = listenPorts(v); err != nil {
				return nil, fmt.Errorf("ingress %s/%s: %w", m.Namespace, m.Name, err)
			}
		} else if len(stringList(m.Annotations[annCertificateARN])) > 0 {
			ports = map[int32]string{443: "HTTPS"}
		}
		for port, protocol := range ports {
			lp, ok := byPort[port]
			if !ok {
				lp = &listenPort{port: port, protocol: protocol}
				byPort[port] = lp
			}
			if lp.protocol != protocol {
				return nil, fmt.Errorf("listener port %d is %s and %s in ingress %s/%s", port, lp.protocol, protocol, m.Namespace, m.Name)
			}
			lp.members = append(lp.members, m)
		}
	}
	out := make([]listenPort, 0, len(byPort))
	for _, lp := range byPort {
		out = append(out, *lp)
	}
	slices.SortFunc(out, func(a, b listenPort) int { return int(a.port - b.port) })
	return out, nil
}

// listener is the listener of p: the default backend's actions (a fixed 404 without one), then one
// rule per path of each member in group order, priorities counting from 1.
func (idx *objectIndex) listener(p listenPort) (Listener, error) {
	l := Listener{Port: p.port, Protocol: p.protocol}
	var withDefault []*networkingv1.Ingress
	for _, m := range p.members {
		if m.Spec.DefaultBackend != nil {
			withDefault = append(withDefault, m)
		}
	}
	switch len(withDefault) {
	case 0:
		l.DefaultActions = []Action{{Type: ActionFixedResponse, FixedResponse: &FixedResponse{StatusCode: "404", ContentType: "text/plain"}}}
	case 1:
		m := withDefault[0]
		acts, err := idx.backendActions(m, *m.Spec.DefaultBackend, p.protocol)
		if err != nil {
			return Listener{}, fmt.Errorf("ingress %s/%s: default backend: %w", m.Namespace, m.Name, err)
		}
		l.DefaultActions = acts
	default:
		return Listener{}, fmt.Errorf("listener port %d: more than one ingress has a default backend", p.port)
	}
	for _, m := range p.members {
		for _, rule := range m.Spec.Rules {
			if rule.HTTP == nil {
				continue
			}
			paths, err := sortPaths(rule.HTTP.Paths)
			if err != nil {
				return Listener{}, fmt.Errorf("ingress %s/%s: %w", m.Namespace, m.Name, err)
			}
			for _, path := range paths {
				conds, err := ruleConditions(rule.Host, path)
				if err != nil {
					return Listener{}, fmt.Errorf("ingress %s/%s: %w", m.Namespace, m.Name, err)
				}
				acts, err := idx.backendActions(m, path.Backend, p.protocol)
				if err != nil {
					return Listener{}, fmt.Errorf("ingress %s/%s: path %q: %w", m.Namespace, m.Name, path.Path, err)
				}
				l.Rules = append(l.Rules, Rule{Priority: int32(len(l.Rules) + 1), Conditions: conds, Actions: acts})
			}
		}
	}
	return l, nil
}

// sortPaths orders a rule's paths as LBC does: Exact paths first, then Prefix paths longest first,
// then the others, each kind keeping its own order otherwise.
func sortPaths(paths []networkingv1.HTTPIngressPath) ([]networkingv1.HTTPIngressPath, error) {
	var exact, prefix, other []networkingv1.HTTPIngressPath
	for _, p := range paths {
		switch t := pathType(p); t {
		case networkingv1.PathTypeExact:
			exact = append(exact, p)
		case networkingv1.PathTypePrefix:
			prefix = append(prefix, p)
		case networkingv1.PathTypeImplementationSpecific:
			other = append(other, p)
		default:
			return nil, fmt.Errorf("path %q: unknown pathType %q", p.Path, t)
		}
	}
	slices.SortStableFunc(prefix, func(a, b networkingv1.HTTPIngressPath) int { return len(b.Path) - len(a.Path) })
	return slices.Concat(exact, prefix, other), nil
}

func pathType(p networkingv1.HTTPIngressPath) networkingv1.PathType {
	if p.PathType == nil {
		return networkingv1.PathTypeImplementationSpecific
	}
	return *p.PathType
}

// ruleConditions are a path's conditions: the host, and the path's patterns (Prefix /a matches /a
// and /a/*, Prefix / everything); with neither, every path.
func ruleConditions(host string, p networkingv1.HTTPIngressPath) ([]Condition, error) {
	var conds []Condition
	if host != "" {
		conds = append(conds, Condition{Field: FieldHostHeader, Values: []string{host}})
	}
	if p.Path != "" {
		var patterns []string
		switch pathType(p) {
		case networkingv1.PathTypeExact:
			if strings.ContainsAny(p.Path, "*?") {
				return nil, fmt.Errorf("exact path %q has a wildcard", p.Path)
			}
			patterns = []string{p.Path}
		case networkingv1.PathTypePrefix:
			if p.Path == "/" {
				patterns = []string{"/*"}
				break
			}
			if strings.ContainsAny(p.Path, "*?") {
				return nil, fmt.Errorf("prefix path %q has a wildcard", p.Path)
			}
			trimmed := strings.TrimSuffix(p.Path, "/")
			patterns = []string{trimmed, trimmed + "/*"}
		default:
			patterns = []string{p.Path}
		}
		conds = append(conds, Condition{Field: FieldPathPattern, Values: patterns})
	}
	if len(conds) == 0 {
		conds = []Condition{{Field: FieldPathPattern, Values: []string{"/*"}}}
	}
	return conds, nil
}

func mapKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

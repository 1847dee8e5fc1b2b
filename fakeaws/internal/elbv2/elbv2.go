// Package elbv2 implements the ELBv2 (2015-12-01) operations fakeaws serves, over the state store.
package elbv2

import (
	"encoding/base64"
	"strconv"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Version is the API version this package speaks.
const Version = "2015-12-01"

// Handler is query.Handler; it runs one operation at scenario time now and returns the result body (encoded inside <OpResult>).
type Handler = query.Handler

// Service is the ELBv2 API over a store.
type Service struct {
	st  *state.Store
	ops map[string]Handler
}

// New returns the service.
func New(st *state.Store) *Service {
	s := &Service{st: st}
	lbAttrs, tgAttrs, listenerAttrs := s.attributeOwners()
	s.ops = map[string]Handler{
		"CreateTargetGroup":    s.createTargetGroup,
		"DeleteTargetGroup":    s.deleteTargetGroup,
		"DescribeTargetGroups": s.describeTargetGroups,
		"ModifyTargetGroup":    s.modifyTargetGroup,
		"RegisterTargets":      s.registerTargets,
		"DeregisterTargets":    s.deregisterTargets,
		"DescribeTargetHealth": s.describeTargetHealth,
		"AddTags":              s.addTags,
		"RemoveTags":           s.removeTags,
		"DescribeTags":         s.describeTags,

		"DescribeTargetGroupAttributes": describeAttributes(tgAttrs),
		"ModifyTargetGroupAttributes":   modifyAttributes(tgAttrs),

		"CreateLoadBalancer":             s.createLoadBalancer,
		"DescribeLoadBalancers":          s.describeLoadBalancers,
		"DeleteLoadBalancer":             s.deleteLoadBalancer,
		"SetSubnets":                     s.setSubnets,
		"SetSecurityGroups":              s.setSecurityGroups,
		"SetIpAddressType":               s.setIPAddressType,
		"DescribeLoadBalancerAttributes": describeAttributes(lbAttrs),
		"ModifyLoadBalancerAttributes":   modifyAttributes(lbAttrs),

		"CreateListener":               s.createListener,
		"DescribeListeners":            s.describeListeners,
		"ModifyListener":               s.modifyListener,
		"DeleteListener":               s.deleteListener,
		"DescribeListenerCertificates": s.describeListenerCertificates,
		"AddListenerCertificates":      s.addListenerCertificates,
		"RemoveListenerCertificates":   s.removeListenerCertificates,
		"DescribeListenerAttributes":   describeAttributes(listenerAttrs),
		"ModifyListenerAttributes":     modifyAttributes(listenerAttrs),

		"CreateRule":        s.createRule,
		"DescribeRules":     s.describeRules,
		"ModifyRule":        s.modifyRule,
		"DeleteRule":        s.deleteRule,
		"SetRulePriorities": s.setRulePriorities,
	}
	return s
}

// Lookup returns the handler of an action.
func (s *Service) Lookup(action string) (Handler, bool) {
	h, ok := s.ops[action]
	return h, ok
}

// Operations lists the supported actions, sorted.
func (s *Service) Operations() []string { return query.Operations(s.ops) }

func required(f *query.Form, key string) (string, error) {
	v := f.Get(key)
	if v == "" {
		return "", query.Errorf("ValidationError", "1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", lowerFirst(key))
	}
	return v, nil
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func intParam(f *query.Form, key string, lo, hi int64) (int64, bool, error) {
	n, ok, err := f.Int(key)
	if err != nil || (ok && (n < lo || n > hi)) {
		return 0, false, query.Errorf("ValidationError", "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have value between %d and %d", f.Get(key), lowerFirst(key), lo, hi)
	}
	return n, ok, nil
}

// Targets parses Targets.member.N into targets (Port 0 when omitted). It is exported for the recorder.
func Targets(f *query.Form) ([]state.Target, error) {
	members := f.Members("Targets.member")
	out := make([]state.Target, 0, len(members))
	for _, p := range members {
		t := state.Target{ID: f.Get(p + ".Id"), AvailabilityZone: f.Get(p + ".AvailabilityZone")}
		if t.ID == "" {
			return nil, query.Errorf("ValidationError", "1 validation error detected: Value null at 'targets.%s.member.id' failed to satisfy constraint: Member must not be null", strings.TrimPrefix(p, "Targets.member."))
		}
		if n, ok, err := f.Int(p + ".Port"); err != nil || (ok && (n < 1 || n > 65535)) {
			return nil, query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'targets.%s.member.port' failed to satisfy constraint: Member must have value between 1 and 65535", f.Get(p+".Port"), strings.TrimPrefix(p, "Targets.member."))
		} else if ok {
			t.Port = int32(n)
		}
		out = append(out, t)
	}
	return out, nil
}

func tags(f *query.Form, prefix string) ([]state.Tag, error) {
	var out []state.Tag
	seen := map[string]bool{}
	for _, p := range f.Members(prefix) {
		k := f.Get(p + ".Key")
		if k == "" || len(k) > 128 || len(f.Get(p+".Value")) > 256 {
			return nil, query.Errorf("ValidationError", "1 validation error detected: tag key must be 1-128 characters and value at most 256")
		}
		if seen[k] {
			return nil, query.Errorf("DuplicateTagKeys", "A tag key was specified more than once: '%s'", k)
		}
		seen[k] = true
		out = append(out, state.Tag{Key: k, Value: f.Get(p + ".Value")})
	}
	return out, nil
}

func encodeMarker(offset int) string {
	return base64.RawURLEncoding.EncodeToString([]byte("o" + strconv.Itoa(offset)))
}

func decodeMarker(m string) (int, error) {
	b, err := base64.RawURLEncoding.DecodeString(m)
	if err == nil && len(b) > 1 && b[0] == 'o' {
		if n, err := strconv.Atoi(string(b[1:])); err == nil && n >= 0 {
			return n, nil
		}
	}
	return 0, query.Errorf("ValidationError", "Invalid marker '%s'", m)
}

package state

import (
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// CreateRule adds a rule (Priority, Conditions, Actions and Tags of r, validated for syntax) to its listener.
func (s *Store) CreateRule(r ListenerRule) (ListenerRule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, err := s.listener(r.ListenerARN)
	if err != nil {
		return ListenerRule{}, err
	}
	lb := s.lbs[l.LoadBalancerARN]
	if lb.Type != LBTypeApplication {
		return ListenerRule{}, query.Errorf("InvalidConfigurationRequest", "Rules are only supported by listeners of application load balancers")
	}
	if err := s.priorityFree(l.ARN, r.Priority, ""); err != nil {
		return ListenerRule{}, err
	}
	if s.cfg.MaxRulesPerListener > 0 && len(s.rulesByListener[l.ARN])-1 >= s.cfg.MaxRulesPerListener {
		return ListenerRule{}, query.Errorf("TooManyRules", "You've reached the limit on the number of rules per load balancer")
	}
	if err := s.checkActions(lb, l.Protocol, r.Actions); err != nil {
		return ListenerRule{}, err
	}
	if err := keepSecrets(r.Actions, nil); err != nil {
		return ListenerRule{}, err
	}
	if err := s.tagLimit(len(r.Tags)); err != nil {
		return ListenerRule{}, err
	}
	r.ARN = strings.Replace(l.ARN, ":listener/", ":listener-rule/", 1) + "/" + s.newID("", 16)
	r.IsDefault = false
	c := cloneRule(&r)
	s.rules[r.ARN] = &c
	s.rulesByListener[l.ARN] = append(s.rulesByListener[l.ARN], r.ARN)
	s.indexActions(lb.ARN, c.Actions, 1)
	return cloneRule(&c), nil
}

func (s *Store) priorityFree(listenerARN string, p int32, self string) error {
	for _, arn := range s.rulesByListener[listenerARN] {
		if arn != self && s.rules[arn].Priority == p && !s.rules[arn].IsDefault {
			return query.Errorf("PriorityInUse", "Priority '%d' is currently in use", p)
		}
	}
	return nil
}

func (s *Store) rule(arn string) (*ListenerRule, error) {
	if r, ok := s.rules[arn]; ok {
		return r, nil
	}
	return nil, query.Errorf("RuleNotFound", "One or more rules not found")
}

// ruleOut is a copy of a rule as described: the default rule carries its listener's default actions.
func (s *Store) ruleOut(r *ListenerRule) ListenerRule {
	c := cloneRule(r)
	if r.IsDefault {
		c.Actions = cloneActions(s.listeners[r.ListenerARN].DefaultActions)
	}
	return c
}

// ModifyRule replaces a rule's conditions (when conditions is not nil) and actions (when actions is not nil).
// The default rule takes actions only; they become its listener's default actions.
func (s *Store) ModifyRule(arn string, conditions []Condition, actions []Action) (ListenerRule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.rule(arn)
	if err != nil {
		return ListenerRule{}, err
	}
	l := s.listeners[r.ListenerARN]
	lb := s.lbs[l.LoadBalancerARN]
	switch {
	case r.IsDefault && len(conditions) > 0:
		return ListenerRule{}, query.Errorf("OperationNotPermitted", "Conditions cannot be set on the default rule '%s'", arn)
	case r.IsDefault:
		conditions = nil // an empty list leaves the default rule as it is
	case conditions != nil && len(conditions) == 0:
		return ListenerRule{}, query.Errorf("ValidationError", "A rule must have at least one condition")
	}
	if actions != nil {
		current := r.Actions
		if r.IsDefault {
			current = l.DefaultActions
		}
		if err := keepSecrets(actions, current); err != nil {
			return ListenerRule{}, err
		}
		s.indexActions(lb.ARN, current, -1)
		if err := s.checkActions(lb, l.Protocol, actions); err != nil {
			s.indexActions(lb.ARN, current, 1)
			return ListenerRule{}, err
		}
		s.indexActions(lb.ARN, actions, 1)
		if r.IsDefault {
			l.DefaultActions = cloneActions(actions)
		} else {
			r.Actions = cloneActions(actions)
		}
	}
	if conditions != nil {
		r.Conditions = cloneRule(&ListenerRule{Conditions: conditions}).Conditions
	}
	return s.ruleOut(r), nil
}

// DeleteRule deletes a rule; the default rule cannot be deleted.
func (s *Store) DeleteRule(arn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.rule(arn)
	if err != nil {
		return err
	}
	if r.IsDefault {
		return query.Errorf("OperationNotPermitted", "Default rule '%s' cannot be deleted", arn)
	}
	s.indexActions(s.listeners[r.ListenerARN].LoadBalancerARN, r.Actions, -1)
	s.rulesByListener[r.ListenerARN] = slices.DeleteFunc(s.rulesByListener[r.ListenerARN], func(a string) bool { return a == arn })
	delete(s.rules, arn)
	return nil
}

// RulePriority is one entry of SetRulePriorities.
type RulePriority struct {
	RuleARN  string
	Priority int32
}

// SetRulePriorities sets rule priorities at once: every rule must exist and not be a default rule, and no two
// rules of a listener may end up with the same priority. Nothing changes on error.
func (s *Store) SetRulePriorities(ps []RulePriority) ([]ListenerRule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := map[string]int32{}
	for _, p := range ps {
		r, err := s.rule(p.RuleARN)
		if err != nil {
			return nil, err
		}
		if r.IsDefault {
			return nil, query.Errorf("OperationNotPermitted", "The priority of the default rule '%s' cannot be set", p.RuleARN)
		}
		next[p.RuleARN] = p.Priority
	}
	for _, p := range ps {
		l := s.rules[p.RuleARN].ListenerARN
		for _, other := range s.rulesByListener[l] {
			o := s.rules[other]
			prio, moved := next[other]
			if !moved {
				prio = o.Priority
			}
			if other != p.RuleARN && !o.IsDefault && prio == p.Priority {
				return nil, query.Errorf("PriorityInUse", "Priority '%d' is currently in use", p.Priority)
			}
		}
	}
	out := make([]ListenerRule, 0, len(ps))
	for _, p := range ps {
		r := s.rules[p.RuleARN]
		r.Priority = p.Priority
		out = append(out, s.ruleOut(r))
	}
	return out, nil
}

// RulesOf returns a listener's rules by priority, the default rule last.
func (s *Store) RulesOf(listenerARN string) ([]ListenerRule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.listener(listenerARN); err != nil {
		return nil, err
	}
	out := make([]ListenerRule, 0, len(s.rulesByListener[listenerARN]))
	for _, arn := range s.rulesByListener[listenerARN] {
		out = append(out, s.ruleOut(s.rules[arn]))
	}
	slices.SortStableFunc(out, func(a, b ListenerRule) int {
		switch {
		case a.IsDefault != b.IsDefault:
			if a.IsDefault {
				return 1
			}
			return -1
		}
		return int(a.Priority) - int(b.Priority)
	})
	return out, nil
}

// RulesByARN returns the rules of arns in order, or the RuleNotFound error.
func (s *Store) RulesByARN(arns []string) ([]ListenerRule, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ListenerRule, 0, len(arns))
	for _, a := range arns {
		r, err := s.rule(a)
		if err != nil {
			return nil, err
		}
		out = append(out, s.ruleOut(r))
	}
	return out, nil
}

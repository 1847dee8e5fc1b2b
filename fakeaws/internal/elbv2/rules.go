package elbv2

import (
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

func priority(f *query.Form, key string) (int32, error) {
	n, ok, err := intParam(f, key, 1, 50000)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, validationf("1 validation error detected: Value null at '%s' failed to satisfy constraint: Member must not be null", lowerFirst(key))
	}
	return int32(n), nil
}

func (s *Service) createRule(_ time.Time, f *query.Form) (any, error) {
	listener, err := required(f, "ListenerArn")
	if err != nil {
		return nil, err
	}
	r := state.ListenerRule{ListenerARN: listener}
	if r.Priority, err = priority(f, "Priority"); err != nil {
		return nil, err
	}
	if r.Conditions, err = conditions(f); err != nil {
		return nil, err
	}
	if len(r.Conditions) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'conditions' failed to satisfy constraint: Member must not be null")
	}
	if r.Actions, err = actions(f, "Actions.member"); err != nil {
		return nil, err
	}
	if r.Tags, err = tags(f, "Tags.member"); err != nil {
		return nil, err
	}
	created, err := s.st.CreateRule(r)
	if err != nil {
		return nil, err
	}
	return rulesResult{Rules: []xRule{ruleToWire(created)}}, nil
}

func (s *Service) modifyRule(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "RuleArn")
	if err != nil {
		return nil, err
	}
	var cs []state.Condition
	var as []state.Action
	if f.Has("Conditions") {
		if cs, err = conditions(f); err != nil {
			return nil, err
		}
		if cs == nil {
			cs = []state.Condition{}
		}
	}
	if f.Has("Actions") {
		if as, err = actions(f, "Actions.member"); err != nil {
			return nil, err
		}
	}
	r, err := s.st.ModifyRule(arn, cs, as)
	if err != nil {
		return nil, err
	}
	return rulesResult{Rules: []xRule{ruleToWire(r)}}, nil
}

func (s *Service) deleteRule(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "RuleArn")
	if err != nil {
		return nil, err
	}
	return nil, s.st.DeleteRule(arn)
}

func (s *Service) setRulePriorities(_ time.Time, f *query.Form) (any, error) {
	members := f.Members("RulePriorities.member")
	if len(members) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'rulePriorities' failed to satisfy constraint: Member must not be null")
	}
	ps := make([]state.RulePriority, 0, len(members))
	for _, p := range members {
		prio, err := priority(f, p+".Priority")
		if err != nil {
			return nil, err
		}
		ps = append(ps, state.RulePriority{RuleARN: f.Get(p + ".RuleArn"), Priority: prio})
	}
	rules, err := s.st.SetRulePriorities(ps)
	if err != nil {
		return nil, err
	}
	res := rulesResult{Rules: make([]xRule, 0, len(rules))}
	for _, r := range rules {
		res.Rules = append(res.Rules, ruleToWire(r))
	}
	return res, nil
}

func (s *Service) describeRules(_ time.Time, f *query.Form) (any, error) {
	listener, arns := f.Get("ListenerArn"), f.Strings("RuleArns.member")
	if (listener == "") == (len(arns) == 0) {
		return nil, validationf("You must specify either listener rule ARNs or a listener ARN")
	}
	start, size, err := pageParams(f)
	if err != nil {
		return nil, err
	}
	var sel []state.ListenerRule
	if listener != "" {
		sel, err = s.st.RulesOf(listener)
	} else {
		sel, err = s.st.RulesByARN(arns)
	}
	if err != nil {
		return nil, err
	}
	page, next := pageOf(sel, start, size)
	res := rulesResult{NextMarker: next, Rules: make([]xRule, 0, len(page))}
	for _, r := range page {
		res.Rules = append(res.Rules, ruleToWire(r))
	}
	return res, nil
}

package state

import (
	"maps"
	"slices"
)

// Deep copies of the load balancer resources: a caller's copy must never alias the store's slices and maps.

func cloneSubnet(sn *Subnet) Subnet {
	c := *sn
	c.Tags = cloneTags(sn.Tags)
	return c
}

func cloneLB(lb *LoadBalancer) LoadBalancer {
	c := *lb
	c.Subnets = slices.Clone(lb.Subnets)
	c.SecurityGroupIDs = slices.Clone(lb.SecurityGroupIDs)
	c.Attributes = maps.Clone(lb.Attributes)
	c.Tags = cloneTags(lb.Tags)
	return c
}

func cloneListener(l *Listener) Listener {
	c := *l
	c.Certificates = slices.Clone(l.Certificates)
	c.AlpnPolicy = slices.Clone(l.AlpnPolicy)
	c.DefaultActions = cloneActions(l.DefaultActions)
	c.Attributes = maps.Clone(l.Attributes)
	c.Tags = cloneTags(l.Tags)
	return c
}

func cloneRule(r *ListenerRule) ListenerRule {
	c := *r
	c.Conditions = make([]Condition, len(r.Conditions))
	for i, cd := range r.Conditions {
		cd.Values = slices.Clone(cd.Values)
		cd.QueryStrings = slices.Clone(cd.QueryStrings)
		c.Conditions[i] = cd
	}
	c.Actions = cloneActions(r.Actions)
	c.Tags = cloneTags(r.Tags)
	return c
}

func cloneActions(as []Action) []Action {
	if as == nil {
		return nil
	}
	out := make([]Action, len(as))
	for i, a := range as {
		if a.Forward != nil {
			f := *a.Forward
			f.TargetGroups = slices.Clone(f.TargetGroups)
			a.Forward = &f
		}
		if a.FixedResponse != nil {
			f := *a.FixedResponse
			a.FixedResponse = &f
		}
		if a.Redirect != nil {
			r := *a.Redirect
			a.Redirect = &r
		}
		if a.OIDC != nil {
			o := *a.OIDC
			o.ExtraParams = maps.Clone(o.ExtraParams)
			a.OIDC = &o
		}
		out[i] = a
	}
	return out
}

// actionTargetGroups lists the target groups the actions forward to (with repeats).
func actionTargetGroups(as []Action) []string {
	var out []string
	for _, a := range as {
		if a.Type != ActionForward {
			continue
		}
		if a.Forward != nil {
			for _, tg := range a.Forward.TargetGroups {
				out = append(out, tg.ARN)
			}
		} else if a.TargetGroupARN != "" {
			out = append(out, a.TargetGroupARN)
		}
	}
	return out
}

// indexActions adds (delta 1) or removes (delta -1) the forwards of actions from tgLBs.
func (s *Store) indexActions(lbARN string, as []Action, delta int) {
	for _, tg := range actionTargetGroups(as) {
		m := s.tgLBs[tg]
		if m == nil {
			m = map[string]int{}
			s.tgLBs[tg] = m
		}
		if m[lbARN] += delta; m[lbARN] <= 0 {
			delete(m, lbARN)
		}
		if len(m) == 0 {
			delete(s.tgLBs, tg)
		}
	}
}

// tgLoadBalancers are the load balancers whose listeners or rules forward to a target group, sorted.
func (s *Store) tgLoadBalancers(tgARN string) []string {
	return sortedKeys(s.tgLBs[tgARN])
}

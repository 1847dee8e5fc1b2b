package state

import (
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// AddTags tags ELBv2 resources (load balancers, listeners, rules, target groups). All must exist; nothing
// changes otherwise.
func (s *Store) AddTags(arns []string, tags []Tag) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	es, err := s.tagTargets(arns)
	if err != nil {
		return err
	}
	for _, e := range es {
		if err := s.tagLimit(len(mergeTags(cloneTags(*e), tags))); err != nil {
			return err
		}
	}
	for _, e := range es {
		*e = mergeTags(*e, tags)
	}
	return nil
}

// RemoveTags removes tag keys from ELBv2 resources.
func (s *Store) RemoveTags(arns []string, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	es, err := s.tagTargets(arns)
	if err != nil {
		return err
	}
	for _, e := range es {
		kept := (*e)[:0]
		for _, t := range *e {
			drop := false
			for _, k := range keys {
				if t.Key == k {
					drop = true
				}
			}
			if !drop {
				kept = append(kept, t)
			}
		}
		*e = kept
	}
	return nil
}

// Tags returns the tags of each ARN, in order.
func (s *Store) Tags(arns []string) ([][]Tag, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	es, err := s.tagTargets(arns)
	if err != nil {
		return nil, err
	}
	out := make([][]Tag, len(es))
	for i, e := range es {
		out[i] = cloneTags(*e)
	}
	return out, nil
}

// tagTargets resolves ELBv2 ARNs to their tag lists; the first unknown ARN decides the error.
func (s *Store) tagTargets(arns []string) ([]*[]Tag, error) {
	out := make([]*[]Tag, 0, len(arns))
	for _, a := range arns {
		var err error
		var p *[]Tag
		switch {
		case strings.Contains(a, ":loadbalancer/"):
			var lb *LoadBalancer
			if lb, err = s.lb(a); err == nil {
				p = &lb.Tags
			}
		case strings.Contains(a, ":listener/"):
			var l *Listener
			if l, err = s.listener(a); err == nil {
				p = &l.Tags
			}
		case strings.Contains(a, ":listener-rule/"):
			var r *ListenerRule
			if r, err = s.rule(a); err == nil {
				p = &r.Tags
			}
		case strings.Contains(a, ":targetgroup/"):
			var e *tgEntry
			if e, err = s.tg(a); err == nil {
				p = &e.Tags
			}
		default:
			err = query.Errorf("ValidationError", "'%s' is not a valid Elastic Load Balancing resource ARN", a)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

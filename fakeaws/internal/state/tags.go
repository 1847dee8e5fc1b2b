package state

import (
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// AddTags tags target groups.
func (s *Store) AddTags(arns []string, tags []Tag) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	es, err := s.tagTargets(arns)
	if err != nil {
		return err
	}
	for _, e := range es {
		if err := s.tagLimit(len(mergeTags(cloneTags(e.Tags), tags))); err != nil {
			return err
		}
	}
	for _, e := range es {
		e.Tags = mergeTags(e.Tags, tags)
	}
	return nil
}

// RemoveTags removes tag keys from target groups.
func (s *Store) RemoveTags(arns []string, keys []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	es, err := s.tagTargets(arns)
	if err != nil {
		return err
	}
	for _, e := range es {
		kept := e.Tags[:0]
		for _, t := range e.Tags {
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
		e.Tags = kept
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
		out[i] = cloneTags(e.Tags)
	}
	return out, nil
}

func (s *Store) tagTargets(arns []string) ([]*tgEntry, error) {
	out := make([]*tgEntry, 0, len(arns))
	for _, a := range arns {
		if strings.Contains(a, ":loadbalancer/") {
			return nil, query.Errorf("LoadBalancerNotFound", "Load balancer '%s' not found", a)
		}
		e, err := s.tg(a)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

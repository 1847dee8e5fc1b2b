package elbv2

import (
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

func resourceArns(f *query.Form) ([]string, error) {
	arns := f.Strings("ResourceArns.member")
	if len(arns) == 0 {
		return nil, query.Errorf("ValidationError", "1 validation error detected: Value null at 'resourceArns' failed to satisfy constraint: Member must not be null")
	}
	if len(arns) > 20 {
		return nil, query.Errorf("ValidationError", "1 validation error detected: Value at 'resourceArns' failed to satisfy constraint: Member must have length less than or equal to 20")
	}
	return arns, nil
}

func (s *Service) addTags(_ time.Time, f *query.Form) (any, error) {
	arns, err := resourceArns(f)
	if err != nil {
		return nil, err
	}
	ts, err := tags(f, "Tags.member")
	if err != nil {
		return nil, err
	}
	if len(ts) == 0 {
		return nil, query.Errorf("ValidationError", "1 validation error detected: Value null at 'tags' failed to satisfy constraint: Member must not be null")
	}
	return nil, s.st.AddTags(arns, ts)
}

func (s *Service) removeTags(_ time.Time, f *query.Form) (any, error) {
	arns, err := resourceArns(f)
	if err != nil {
		return nil, err
	}
	keys := f.Strings("TagKeys.member")
	if len(keys) == 0 {
		return nil, query.Errorf("ValidationError", "1 validation error detected: Value null at 'tagKeys' failed to satisfy constraint: Member must not be null")
	}
	return nil, s.st.RemoveTags(arns, keys)
}

func (s *Service) describeTags(_ time.Time, f *query.Form) (any, error) {
	arns, err := resourceArns(f)
	if err != nil {
		return nil, err
	}
	all, err := s.st.Tags(arns)
	if err != nil {
		return nil, err
	}
	res := tagsResult{TagDescriptions: make([]xTagDescription, 0, len(arns))}
	for i, a := range arns {
		d := xTagDescription{ResourceArn: a, Tags: make([]xTag, 0, len(all[i]))}
		for _, t := range all[i] {
			d.Tags = append(d.Tags, xTag{Key: t.Key, Value: t.Value})
		}
		res.TagDescriptions = append(res.TagDescriptions, d)
	}
	return res, nil
}

package state

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

var tgName = regexp.MustCompile(`^[A-Za-z0-9](?:[A-Za-z0-9-]{0,30}[A-Za-z0-9])?$`)

func cloneTG(tg *tgEntry) TargetGroup {
	c := tg.TargetGroup
	c.Tags = cloneTags(tg.Tags)
	c.Attributes = maps.Clone(tg.Attributes)
	c.LoadBalancerARNs = nil // derived, see tgOut
	return c
}

// tgOut is a copy of a group as described, with the load balancers that forward to it.
func (s *Store) tgOut(tg *tgEntry) TargetGroup {
	c := cloneTG(tg)
	c.LoadBalancerARNs = s.tgLoadBalancers(tg.ARN)
	return c
}

// CreateTargetGroup creates a target group. Creating one with the name and settings of an existing group returns
// the existing group (AWS is idempotent here); the same name with other settings is DuplicateTargetGroupName.
func (s *Store) CreateTargetGroup(tg TargetGroup, now time.Time) (TargetGroup, error) {
	if !tgName.MatchString(tg.Name) || strings.HasPrefix(strings.ToLower(tg.Name), "internal-") {
		return TargetGroup{}, query.Errorf("ValidationError", "Target group name '%s' must be at most 32 alphanumeric characters or hyphens, and must not begin or end with a hyphen", tg.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if tg.TargetType != "lambda" {
		if tg.VPCID == "" {
			return TargetGroup{}, query.Errorf("ValidationError", "A VPC ID must be specified for target type '%s'", tg.TargetType)
		}
		if _, ok := s.vpcs[tg.VPCID]; !ok {
			return TargetGroup{}, query.Errorf("ValidationError", "The VPC ID '%s' is not found", tg.VPCID)
		}
	}
	if arn, ok := s.tgByName[tg.Name]; ok {
		o := s.tgs[arn]
		if o.Protocol == tg.Protocol && o.ProtocolVersion == tg.ProtocolVersion && o.Port == tg.Port && o.VPCID == tg.VPCID && o.TargetType == tg.TargetType {
			return s.tgOut(o), nil
		}
		return TargetGroup{}, query.Errorf("DuplicateTargetGroupName", "A target group with the same name '%s' exists, but with different settings", tg.Name)
	}
	if s.cfg.MaxTargetGroups > 0 && len(s.tgs) >= s.cfg.MaxTargetGroups {
		return TargetGroup{}, query.Errorf("TooManyTargetGroups", "You have reached the limit on the number of target groups for your AWS account")
	}
	if err := s.tagLimit(len(tg.Tags)); err != nil {
		return TargetGroup{}, err
	}
	tg.ARN = "arn:aws:elasticloadbalancing:" + s.cfg.Region + ":" + s.cfg.AccountID + ":targetgroup/" + tg.Name + "/" + s.newID("", 16)
	tg.CreatedAt = now
	tg.Tags = cloneTags(tg.Tags)
	e := &tgEntry{TargetGroup: tg, targets: map[targetKey]*targetEntry{}}
	s.tgs[tg.ARN] = e
	s.tgByName[tg.Name] = tg.ARN
	s.tgOrder.add(tgKey{tg.Name, tg.ARN})
	return s.tgOut(e), nil
}

func (s *Store) tg(arn string) (*tgEntry, error) {
	if e, ok := s.tgs[arn]; ok {
		return e, nil
	}
	return nil, query.Errorf("TargetGroupNotFound", "Target groups '%s' not found", arn)
}

// DeleteTargetGroup deletes a group; deleting an unknown group succeeds, as in AWS, and one a listener or rule
// forwards to is ResourceInUse.
func (s *Store) DeleteTargetGroup(arn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.tgs[arn]
	if !ok {
		return nil
	}
	if len(s.tgLBs[arn]) > 0 {
		return query.Errorf("ResourceInUse", "Target group '%s' is currently in use by a listener or a rule", arn)
	}
	delete(s.tgs, arn)
	delete(s.tgByName, e.Name)
	s.tgOrder.remove()
	return nil
}

// TargetGroups returns all target groups sorted by name, then ARN.
func (s *Store) TargetGroups() []TargetGroup {
	page, _ := s.TargetGroupPage(0, -1)
	return page
}

// TargetGroupPage returns the groups [start, start+size) of the TargetGroups order (all from start when size
// < 0) and the number of groups. Only the page is copied.
func (s *Store) TargetGroupPage(start, size int) ([]TargetGroup, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	keys := s.tgOrder.keys(func(k tgKey) bool { return s.tgs[k.arn] != nil })
	start = min(max(start, 0), len(keys))
	end := len(keys)
	if size >= 0 {
		end = min(start+size, end)
	}
	out := make([]TargetGroup, 0, end-start)
	for _, k := range keys[start:end] {
		out = append(out, s.tgOut(s.tgs[k.arn]))
	}
	return out, len(keys)
}

// TargetGroupsByARN returns the groups of arns in order and -1, or nil and the index of the first ARN that does
// not exist.
func (s *Store) TargetGroupsByARN(arns []string) ([]TargetGroup, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return lookup(s.tgs, arns, s.tgOut)
}

// TargetGroupsByName returns the groups of names in order and -1, or nil and the index of the first name no
// group has.
func (s *Store) TargetGroupsByName(names []string) ([]TargetGroup, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TargetGroup, 0, len(names))
	for i, n := range names {
		arn, ok := s.tgByName[n]
		if !ok {
			return nil, i
		}
		out = append(out, s.tgOut(s.tgs[arn]))
	}
	return out, -1
}

// TargetGroup returns one group by ARN.
func (s *Store) TargetGroup(arn string) (TargetGroup, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.tg(arn)
	if err != nil {
		return TargetGroup{}, err
	}
	return s.tgOut(e), nil
}

// ModifyTargetGroup applies fn to the group's settings under the lock.
func (s *Store) ModifyTargetGroup(arn string, fn func(*TargetGroup) error) (TargetGroup, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.tg(arn)
	if err != nil {
		return TargetGroup{}, err
	}
	c := cloneTG(e)
	if err := fn(&c); err != nil {
		return TargetGroup{}, err
	}
	e.HealthCheck = c.HealthCheck
	return s.tgOut(e), nil
}

// SetTargetGroupAttributes records attribute values (validated by the caller) and returns the group.
func (s *Store) SetTargetGroupAttributes(arn string, attrs map[string]string) (TargetGroup, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.tg(arn)
	if err != nil {
		return TargetGroup{}, err
	}
	e.Attributes = setAttributes(e.Attributes, attrs)
	return s.tgOut(e), nil
}

// TargetGroupsOf returns the groups a load balancer's listeners and rules forward to, in name order.
func (s *Store) TargetGroupsOf(lbARN string) ([]TargetGroup, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.lb(lbARN); err != nil {
		return nil, err
	}
	var out []TargetGroup
	for arn, lbs := range s.tgLBs {
		if lbs[lbARN] > 0 {
			out = append(out, s.tgOut(s.tgs[arn]))
		}
	}
	slices.SortFunc(out, func(a, b TargetGroup) int { return cmpTGKey(tgKey{a.Name, a.ARN}, tgKey{b.Name, b.ARN}) })
	return out, nil
}

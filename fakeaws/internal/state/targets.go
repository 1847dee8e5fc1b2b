package state

import (
	"net/netip"
	"sort"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// validateTarget checks that t is something the group can hold: a running instance in its VPC, or an
// address inside one of its VPC's CIDRs (any address for AvailabilityZone "all").
func (s *Store) validateTarget(e *tgEntry, t Target) error {
	switch e.TargetType {
	case "instance":
		in, ok := s.instances[t.ID]
		if !ok {
			return query.Errorf("InvalidTarget", "The following targets are not valid instances: '%s'", t.ID)
		}
		if in.State != "running" {
			return query.Errorf("InvalidTarget", "The following targets are not in a running state and cannot be registered: '%s'", t.ID)
		}
		if in.VPCID != e.VPCID {
			return query.Errorf("InvalidTarget", "The following targets are not in the target group VPC '%s': '%s'", e.VPCID, t.ID)
		}
	case "ip":
		addr, err := netip.ParseAddr(t.ID)
		if err != nil {
			return query.Errorf("InvalidTarget", "The IP address '%s' is not a valid IPv4 address", t.ID)
		}
		if t.AvailabilityZone == "all" {
			return nil
		}
		vpc := s.vpcs[e.VPCID]
		in := false
		if vpc != nil {
			for _, c := range vpc.CIDRs {
				if p, err := netip.ParsePrefix(c); err == nil && p.Contains(addr) {
					in = true
				}
			}
		}
		if !in {
			return query.Errorf("InvalidTarget", "The IP address '%s' is not within the VPC '%s'", t.ID, e.VPCID)
		}
	case "alb":
		lb, ok := s.lbs[t.ID]
		if !ok || lb.Type != LBTypeApplication {
			return query.Errorf("InvalidTarget", "The following targets are not Application Load Balancers: '%s'", t.ID)
		}
		if lb.VPCID != e.VPCID {
			return query.Errorf("InvalidTarget", "The following targets are not in the target group VPC '%s': '%s'", e.VPCID, t.ID)
		}
		for k := range e.targets {
			if k.id != t.ID {
				return query.Errorf("InvalidTarget", "A target group of type 'alb' holds one Application Load Balancer; it already has '%s'", k.id)
			}
		}
	default:
		return query.Errorf("InvalidTarget", "Targets of type '%s' cannot be registered by fakeaws", e.TargetType)
	}
	return nil
}

// gc drops targets whose draining period is over.
func (s *Store) gc(e *tgEntry, now time.Time) {
	for k, t := range e.targets {
		if t.deregisteredAt != nil && !now.Before(t.deregisteredAt.Add(s.cfg.DeregistrationDelay)) {
			delete(e.targets, k)
		}
	}
}

func (s *Store) resolve(e *tgEntry, t Target) (Target, error) {
	if t.Port == 0 {
		t.Port = e.Port
	}
	if t.Port < 1 || t.Port > 65535 {
		return t, query.Errorf("ValidationError", "Port must be between 1 and 65535 for target '%s'", t.ID)
	}
	if t.ID == "" {
		return t, query.Errorf("ValidationError", "A target ID must be specified")
	}
	return t, nil
}

// withTargets runs fn on a target group under the store lock, after the checks Register and Deregister
// share: a non-empty target list, an existing group, and expired draining targets dropped.
func (s *Store) withTargets(arn string, targets []Target, now time.Time, fn func(*tgEntry) error) error {
	if len(targets) == 0 {
		return query.Errorf("ValidationError", "1 validation error detected: Value null at 'targets' failed to satisfy constraint: Member must not be null")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.tg(arn)
	if err != nil {
		return err
	}
	s.gc(e, now)
	return fn(e)
}

// RegisterTargets registers targets at now; a draining target goes back to initial.
func (s *Store) RegisterTargets(arn string, targets []Target, now time.Time) error {
	return s.withTargets(arn, targets, now, func(e *tgEntry) error { return s.register(e, targets, now) })
}

func (s *Store) register(e *tgEntry, targets []Target, now time.Time) error {
	resolved := make([]Target, 0, len(targets))
	// AWS registers the same Id and Port once however often a call names it, so only distinct new
	// targets count against the quota.
	added := map[targetKey]bool{}
	for _, t := range targets {
		t, err := s.resolve(e, t)
		if err != nil {
			return err
		}
		if err := s.validateTarget(e, t); err != nil {
			return err
		}
		if k := (targetKey{t.ID, t.Port}); e.targets[k] == nil {
			added[k] = true
		}
		resolved = append(resolved, t)
	}
	if s.cfg.MaxTargetsPerGroup > 0 && len(e.targets)+len(added) > s.cfg.MaxTargetsPerGroup {
		return query.Errorf("TooManyTargets", "You've reached the limit on the number of targets (%d) per target group", s.cfg.MaxTargetsPerGroup)
	}
	for _, t := range resolved {
		k := targetKey{t.ID, t.Port}
		if have, ok := e.targets[k]; ok {
			if have.deregisteredAt != nil {
				have.deregisteredAt = nil
				have.registeredAt = now
			}
			continue
		}
		e.targets[k] = &targetEntry{t: t, registeredAt: now}
	}
	return nil
}

// DeregisterTargets starts draining registered targets. A target that is not registered is InvalidTarget;
// deregistering a draining target again is a no-op.
func (s *Store) DeregisterTargets(arn string, targets []Target, now time.Time) error {
	return s.withTargets(arn, targets, now, func(e *tgEntry) error { return s.deregister(e, arn, targets, now) })
}

func (s *Store) deregister(e *tgEntry, arn string, targets []Target, now time.Time) error {
	keys := make([]targetKey, 0, len(targets))
	for _, t := range targets {
		t, err := s.resolve(e, t)
		if err != nil {
			return err
		}
		k := targetKey{t.ID, t.Port}
		if _, ok := e.targets[k]; !ok {
			return query.Errorf("InvalidTarget", "The following targets are not registered in target group '%s': 'Id: %s, Port: %d'", arn, t.ID, t.Port)
		}
		keys = append(keys, k)
	}
	for _, k := range keys {
		if te := e.targets[k]; te.deregisteredAt == nil {
			at := now
			te.deregisteredAt = &at
		}
	}
	return nil
}

// health is a target's state at now. A group no listener or rule forwards to is not health checked, so
// its registered targets are unused until a load balancer uses it.
func (s *Store) health(te *targetEntry, inUse bool, now time.Time) TargetHealth {
	h := TargetHealth{Target: te.t, RegisteredAt: te.registeredAt, HealthyAt: te.registeredAt.Add(s.cfg.HealthyAfter)}
	switch {
	case te.deregisteredAt != nil:
		at := *te.deregisteredAt
		h.DeregisteredAt = &at
		h.State, h.Reason = HealthDraining, ReasonDeregistrationInProgress
		h.Description = "Target deregistration is in progress"
	case !inUse:
		h.State, h.Reason = HealthUnused, ReasonNotInUse
		h.Description = "Target group is not configured to receive traffic from the load balancer"
	case now.Before(h.HealthyAt):
		h.State, h.Reason = HealthInitial, ReasonRegistrationInProgress
		h.Description = "Target registration is in progress"
	default:
		h.State = HealthHealthy
	}
	return h
}

// TargetHealth returns the health of the group's targets at now, sorted by ID and port. With a filter, it
// returns exactly the filtered targets in order; unknown ones are "unused"/Target.NotRegistered.
func (s *Store) TargetHealth(arn string, filter []Target, now time.Time) ([]TargetHealth, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.tg(arn)
	if err != nil {
		return nil, err
	}
	s.gc(e, now)
	inUse := len(s.tgLBs[arn]) > 0
	if len(filter) > 0 {
		out := make([]TargetHealth, 0, len(filter))
		for _, f := range filter {
			if f.Port == 0 {
				f.Port = e.Port
			}
			if te, ok := e.targets[targetKey{f.ID, f.Port}]; ok {
				out = append(out, s.health(te, inUse, now))
				continue
			}
			out = append(out, TargetHealth{Target: f, State: HealthUnused, Reason: ReasonNotRegistered, Description: "Target is not registered to the target group"})
		}
		return out, nil
	}
	out := make([]TargetHealth, 0, len(e.targets))
	for _, te := range e.targets {
		out = append(out, s.health(te, inUse, now))
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Target.ID != out[j].Target.ID {
			return out[i].Target.ID < out[j].Target.ID
		}
		return out[i].Target.Port < out[j].Target.Port
	})
	return out, nil
}

// RemoveTarget deletes a target immediately, out of band (drift).
func (s *Store) RemoveTarget(arn string, t Target) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.tg(arn)
	if err != nil {
		return err
	}
	if t.Port == 0 {
		t.Port = e.Port
	}
	k := targetKey{t.ID, t.Port}
	if _, ok := e.targets[k]; !ok {
		return query.Errorf("InvalidTarget", "target %s:%d is not registered in %s", t.ID, t.Port, arn)
	}
	delete(e.targets, k)
	return nil
}

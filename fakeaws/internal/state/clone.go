package state

import (
	"fmt"
	"maps"
	"math/rand/v2"
)

// Clone returns an independent copy of the account: every resource, registered target and timestamp, and
// the position of the ID generator (so the copy never mints an ID the original already handed out). cfg
// replaces the copy's settings (health timing, quotas); its Seed is ignored.
func (s *Store) Clone(cfg Config) (*Store, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	state, err := s.src.MarshalBinary()
	if err != nil {
		return nil, fmt.Errorf("copying the ID generator: %w", err)
	}
	src := &rand.PCG{}
	if err := src.UnmarshalBinary(state); err != nil {
		return nil, fmt.Errorf("copying the ID generator: %w", err)
	}
	cfg.Seed = s.cfg.Seed
	c := &Store{cfg: cfg, src: src, rng: rand.New(src), defaultVPC: s.defaultVPC,
		vpcs: cloneMap(s.vpcs, cloneVPC), instances: cloneMap(s.instances, cloneInstance),
		enis: cloneMap(s.enis, cloneENI), sgs: cloneMap(s.sgs, cloneSG), tgs: cloneMap(s.tgs, cloneEntry),
		subnets: cloneMap(s.subnets, cloneSubnet), lbs: cloneMap(s.lbs, cloneLB), listeners: cloneMap(s.listeners, cloneListener),
		rules: cloneMap(s.rules, cloneRule), r53: s.r53.clone(), lts: cloneMap(s.lts, cloneLaunchTemplate),
		capErrs: maps.Clone(s.capErrs), acmCerts: cloneMap(s.acmCerts, cloneACM), acmTokens: maps.Clone(s.acmTokens)}
	c.reindex() // rebuilt, not copied: the copy's indexes must point at the copy's resources
	return c, nil
}

func cloneMap[V any](m map[string]*V, clone func(*V) V) map[string]*V {
	out := make(map[string]*V, len(m))
	for k, v := range m {
		c := clone(v)
		out[k] = &c
	}
	return out
}

func cloneEntry(e *tgEntry) tgEntry {
	c := tgEntry{TargetGroup: cloneTG(e), targets: maps.Clone(e.targets)}
	for k, t := range c.targets {
		cp := *t
		if t.deregisteredAt != nil {
			at := *t.deregisteredAt
			cp.deregisteredAt = &at
		}
		c.targets[k] = &cp
	}
	return c
}

// Package targets holds the target model of a target group and the diff between the targets a
// TargetGroupBinding wants and the ones AWS reports.
package targets

import (
	"fmt"
	"sort"
)

// ChunkSize is the most targets one RegisterTargets or DeregisterTargets call carries.
const ChunkSize = 200

// Target health states as ELBv2 reports them.
const (
	StateInitial     = "initial"
	StateHealthy     = "healthy"
	StateUnhealthy   = "unhealthy"
	StateUnused      = "unused"
	StateDraining    = "draining"
	StateUnavailable = "unavailable"
)

// Target is one target: an IP or instance ID on a port.
type Target struct {
	ID   string
	Port int32
	// AvailabilityZone is "all" for IPs outside the VPC; otherwise empty.
	AvailabilityZone string
}

// Key identifies a target in a target group.
func (t Target) Key() string { return fmt.Sprintf("%s:%d", t.ID, t.Port) }

// Health is a target and its reported state.
type Health struct {
	Target
	State  string
	Reason string
}

// Diff returns the desired targets AWS lacks and the registered targets no longer desired.
// Draining targets are already on their way out and are never deregistered again.
func Diff(desired []Target, current []Health) (add, remove []Target) {
	have := make(map[string]bool, len(current))
	for _, h := range current {
		if h.State != StateDraining {
			have[h.Key()] = true
		}
	}
	want := make(map[string]bool, len(desired))
	for _, t := range desired {
		want[t.Key()] = true
		if !have[t.Key()] {
			add = append(add, t)
		}
	}
	for _, h := range current {
		if h.State != StateDraining && !want[h.Key()] {
			remove = append(remove, h.Target)
		}
	}
	sortTargets(add)
	sortTargets(remove)
	return add, remove
}

// Chunks splits ts into slices of at most size.
func Chunks(ts []Target, size int) [][]Target {
	var out [][]Target
	for len(ts) > 0 {
		n := min(size, len(ts))
		out = append(out, ts[:n])
		ts = ts[n:]
	}
	return out
}

// Index maps target keys to their health.
func Index(hs []Health) map[string]Health {
	m := make(map[string]Health, len(hs))
	for _, h := range hs {
		m[h.Key()] = h
	}
	return m
}

func sortTargets(ts []Target) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].ID != ts[j].ID {
			return ts[i].ID < ts[j].ID
		}
		return ts[i].Port < ts[j].Port
	})
}

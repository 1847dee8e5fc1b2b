// Package ttlcache is a small concurrency-safe map whose entries expire after a TTL on an injected clock.
package ttlcache

import (
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Cache maps K to V; entries expire ttl after Set.
type Cache[K comparable, V any] struct {
	mu      sync.Mutex
	clock   clock.PassiveClock
	ttl     time.Duration
	entries map[K]entry[V]
}

type entry[V any] struct {
	v       V
	expires time.Time
}

// New creates a cache; clk is the time source (nil: the real clock).
func New[K comparable, V any](ttl time.Duration, clk clock.PassiveClock) *Cache[K, V] {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &Cache[K, V]{clock: clk, ttl: ttl, entries: map[K]entry[V]{}}
}

// Get returns the live value for k.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || !c.clock.Now().Before(e.expires) {
		delete(c.entries, k)
		var zero V
		return zero, false
	}
	return e.v, true
}

// Set stores v for k with the cache's TTL.
func (c *Cache[K, V]) Set(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[k] = entry[V]{v: v, expires: c.clock.Now().Add(c.ttl)}
}

// Delete drops k.
func (c *Cache[K, V]) Delete(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, k)
}

// GetFresh returns the value for k only when it was Set less than maxAge ago (and is still live).
func (c *Cache[K, V]) GetFresh(k K, maxAge time.Duration) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	now := c.clock.Now()
	if !ok || !now.Before(e.expires) || now.Sub(e.expires.Add(-c.ttl)) >= maxAge {
		var zero V
		return zero, false
	}
	return e.v, true
}

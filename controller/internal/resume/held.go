package resume

import (
	"context"
	"sync"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// HeldCache is a manager's cache with its start held back until the fast path releases it, so
// that the fast path replays the downtime's changes before the informers list the fleet.
type HeldCache struct {
	cache.Cache
	released chan struct{}
	once     sync.Once
}

// held records the caches HoldCache made until they are released: the manager options install
// the hold, and the controller built later on the manager finds it by the manager's cache.
var held = struct {
	sync.Mutex
	caches map[cache.Cache]*HeldCache
}{caches: map[cache.Cache]*HeldCache{}}

// HoldCache wraps newCache so that the caches it makes start only once released (HeldCacheOf).
func HoldCache(newCache cache.NewCacheFunc) cache.NewCacheFunc {
	return func(cfg *rest.Config, opts cache.Options) (cache.Cache, error) {
		c, err := newCache(cfg, opts)
		if err != nil {
			return nil, err
		}
		h := &HeldCache{Cache: c, released: make(chan struct{})}
		held.Lock()
		held.caches[h] = h
		held.Unlock()
		return h, nil
	}
}

// HeldCacheOf is c held by HoldCache and not yet released; nil if HoldCache did not make c.
func HeldCacheOf(c cache.Cache) *HeldCache {
	held.Lock()
	defer held.Unlock()
	return held.caches[c]
}

// Start starts the cache once released; it returns nil at once if ctx ends first.
func (h *HeldCache) Start(ctx context.Context) error {
	select {
	case <-h.released:
	case <-ctx.Done():
		return nil
	}
	return h.Cache.Start(ctx)
}

// release lets the cache start; it may be called more than once.
func (h *HeldCache) release() {
	h.once.Do(func() {
		held.Lock()
		delete(held.caches, h)
		held.Unlock()
		close(h.released)
	})
}

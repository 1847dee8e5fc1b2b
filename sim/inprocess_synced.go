package sim

import (
	"regexp"
	"time"

	"github.com/restartsim/restartsim/sim/scenario"
)

// cacheSyncedMessage is controller-runtime's log message once a controller's caches synced and
// its workers start, the same line an out-of-process reference controller is watched for.
var cacheSyncedMessage = regexp.MustCompile(regexp.QuoteMeta(scenario.DefaultCacheSyncedLog))

// replacementCachesSynced is when the first restart's replacement replica synced its caches
// (zero: no replacement, or not yet).
func (p *inProcess) replacementCachesSynced() time.Time {
	p.mu.Lock()
	r := p.replacement
	p.mu.Unlock()
	if r == nil || r.synced == nil {
		return time.Time{}
	}
	return r.synced.When()
}

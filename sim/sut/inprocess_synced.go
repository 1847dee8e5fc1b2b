package sut

import (
	"regexp"
	"time"

	"github.com/restartsim/restartsim/sim/scenario"
)

// cacheSyncedMessage is controller-runtime's log message once a controller's caches synced and
// its workers start, the same line an out-of-process reference controller is watched for.
var cacheSyncedMessage = regexp.MustCompile(regexp.QuoteMeta(scenario.DefaultCacheSyncedLog))

// cachesSynced is when each replica that got so far synced its caches. A replica starts its
// workers, and logs so, only once it leads, so a standby's moment comes after it took over.
func (p *inProcess) cachesSynced() []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Time
	for _, s := range p.synced {
		if t := s.When(); !t.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

package queue

import "math"

// Bucket is a token bucket: Rate tokens a second up to Burst. A Rate of zero or less never
// throttles.
type Bucket struct {
	Rate  float64
	Burst float64
}

// Unlimited reports whether the bucket never makes a call wait.
func (b Bucket) Unlimited() bool { return b.Rate <= 0 || math.IsInf(b.Rate, 1) }

// tokens is a bucket's state: it held `level` tokens at time `at`, the latest grant.
type tokens struct {
	Bucket
	level float64
	at    float64
}

func newTokens(b Bucket) *tokens { return &tokens{Bucket: b, level: b.Burst} }

// grant returns when a call asking at t gets its token. Calls must ask in time order (the
// simulation's event order), which makes the bucket first come, first served.
func (t *tokens) grant(ask float64) float64 {
	if t.Unlimited() {
		return ask
	}
	now := max(ask, t.at)
	level := min(t.Burst, t.level+t.Rate*(now-t.at))
	if level < 1 {
		now += (1 - level) / t.Rate
		level = 1
	}
	t.level, t.at = level-1, now
	return now
}

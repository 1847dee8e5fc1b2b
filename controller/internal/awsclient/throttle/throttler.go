package throttle

import (
	"context"
	"time"

	"github.com/aws/smithy-go/middleware"
	"golang.org/x/time/rate"

	"github.com/restartsim/restartsim/internal/throttlespec"
)

// Throttler waits on the limiters of the rules an operation matches.
type Throttler struct {
	limiters map[string][]matcher
	// observe is told how long each call waited; may be nil.
	observe func(serviceID, operation string, waited time.Duration)
}

type matcher struct {
	rule    throttlespec.Rule
	limiter *rate.Limiter
}

// New builds a Throttler with one limiter per rule; observe (may be nil) receives each wait.
func New(cfg throttlespec.Config, observe func(serviceID, operation string, waited time.Duration)) *Throttler {
	t := &Throttler{limiters: map[string][]matcher{}, observe: observe}
	for id, rules := range cfg {
		for _, r := range rules {
			t.limiters[id] = append(t.limiters[id], matcher{rule: r, limiter: rate.NewLimiter(rate.Limit(r.Rate), r.Burst)})
		}
	}
	return t
}

// Wait blocks until every limiter matching serviceID/operation allows one call.
func (t *Throttler) Wait(ctx context.Context, serviceID, operation string) error {
	start := time.Now()
	for _, m := range t.limiters[serviceID] {
		if m.rule.OperationPtn.MatchString(operation) {
			if err := m.limiter.Wait(ctx); err != nil {
				return err
			}
		}
	}
	if t.observe != nil {
		t.observe(serviceID, operation, time.Since(start))
	}
	return nil
}

// Middleware returns the SDK stack option that throttles each operation once, before the retry loop,
// as upstream does.
func (t *Throttler) Middleware() func(*middleware.Stack) error {
	return func(stack *middleware.Stack) error {
		return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("restartsim/throttle",
			func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
				if err := t.Wait(ctx, middleware.GetServiceID(ctx), middleware.GetOperationName(ctx)); err != nil {
					return middleware.FinalizeOutput{}, middleware.Metadata{}, err
				}
				return next.HandleFinalize(ctx, in)
			}), middleware.Before)
	}
}

// Package apiretry retries Kubernetes API calls that fail for a passing reason: an overloaded API
// server (throttled, timed out, briefly unavailable) or, for writes that race another writer of the
// same object, a conflict. The fleet's writers and the simulated kubelet share these rules.
package apiretry

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Create creates obj, retrying transient errors; if a retried create finds the object already there
// (the first attempt succeeded after all), it reads it back into obj.
func Create(ctx context.Context, c client.Client, obj client.Object) error {
	attempt := 0
	return OnTransient(ctx, func() error {
		attempt++
		err := c.Create(ctx, obj)
		if apierrors.IsAlreadyExists(err) && attempt > 1 {
			return c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		}
		return err
	})
}

// OnTransient retries fn on errors an overloaded API server returns, with a short backoff.
func OnTransient(ctx context.Context, fn func() error) error {
	delay := 50 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := fn()
		if err == nil || attempt == 8 || !transient(err) {
			return err
		}
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(delay):
		}
		delay *= 2
	}
}

func transient(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err)
}

// Contended retries writes that race other writers of the same object (a churn step and the
// simulated endpoint controller both sync a slice after a pod change): client-go's DefaultRetry
// (5 tries within ~50 ms) can run out while the other writer is still busy on a loaded machine.
var Contended = wait.Backoff{Steps: 10, Duration: 10 * time.Millisecond, Factor: 2, Jitter: 0.5}

// Retriable: a conflict with another writer, or a transient API error.
func Retriable(err error) bool { return apierrors.IsConflict(err) || transient(err) }

package workload

import (
	"context"
	"errors"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// createObject creates obj, retrying transient errors; if a retried create finds the object already there
// (the first attempt succeeded after all), it reads it back into obj.
func createObject(ctx context.Context, c client.Client, obj client.Object) error {
	attempt := 0
	return retryTransient(ctx, func() error {
		attempt++
		err := c.Create(ctx, obj)
		if apierrors.IsAlreadyExists(err) && attempt > 1 {
			return c.Get(ctx, client.ObjectKeyFromObject(obj), obj)
		}
		return err
	})
}

// retryTransient retries fn on errors an overloaded API server returns, with a short backoff.
func retryTransient(ctx context.Context, fn func() error) error {
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

// contendedRetry retries writes that race other writers of the same object (a churn step and the
// simulated endpoint controller both sync a slice after a pod change): client-go's DefaultRetry
// (5 tries within ~50 ms) can run out while the other writer is still busy on a loaded machine.
var contendedRetry = wait.Backoff{Steps: 10, Duration: 10 * time.Millisecond, Factor: 2, Jitter: 0.5}

// retriable: a conflict with another writer, or a transient API error.
func retriable(err error) bool { return apierrors.IsConflict(err) || transient(err) }

package sut

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/restartsim/restartsim/internal/poll"
)

const (
	// leasePoll is how often the Lease is read while a new leader is awaited: the lead time it
	// measures comes from the Lease's acquireTime, the poll only bounds when the harness notices.
	leasePoll = 50 * time.Millisecond
	// leaseWaitTimeout bounds the wait for a new holder: a controller-runtime standby takes the
	// Lease within its lease duration (15 s by default) after the leader stopped renewing.
	leaseWaitTimeout = 5 * time.Minute
	// defaultLeaseDuration is client-go's, for a Lease that does not say its own.
	defaultLeaseDuration = 15 * time.Second
)

// leaseWatch reads an external controller's leader-election Lease with the harness's identity
// (not the controller's, so its reads are not counted as the controller's requests).
type leaseWatch struct {
	c               kubernetes.Interface
	namespace, name string

	mu sync.Mutex
	// before is the holder when the last leader was stopped.
	before string
}

func newLeaseWatch(cfg *rest.Config, namespace, name string) (*leaseWatch, error) {
	c, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &leaseWatch{c: c, namespace: namespace, name: name}, nil
}

func (l *leaseWatch) String() string { return l.namespace + "/" + l.name }

// holderBeforeStop notes the Lease's holder as the leader is about to stop.
func (l *leaseWatch) holderBeforeStop(ctx context.Context) {
	holder := ""
	if lease, err := l.c.CoordinationV1().Leases(l.namespace).Get(ctx, l.name, metav1.GetOptions{}); err == nil && lease.Spec.HolderIdentity != nil {
		holder = *lease.Spec.HolderIdentity
	}
	l.mu.Lock()
	l.before = holder
	l.mu.Unlock()
}

func (l *leaseWatch) previousHolder() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.before
}

// await waits until the Lease has a holder other than old, renewed within its lease duration, and
// returns when that holder acquired it (its acquireTime, when it is after since; else when seen).
// It gives up when abort is closed.
func (l *leaseWatch) await(ctx context.Context, old string, since time.Time, abort <-chan struct{}) (time.Time, error) {
	last := "the Lease does not exist"
	var at time.Time
	err := poll.UntilAborted(ctx, abort, leaseWaitTimeout, poll.Every(leasePoll), func() (bool, error) {
		now := time.Now()
		lease, err := l.c.CoordinationV1().Leases(l.namespace).Get(ctx, l.name, metav1.GetOptions{})
		switch {
		case err == nil:
			var ok bool
			if at, ok = newHolder(lease, old, since, now); ok {
				return true, nil
			}
			last = describeLease(lease)
		case !apierrors.IsNotFound(err):
			last = err.Error()
		}
		return false, nil
	})
	switch {
	case errors.Is(err, poll.ErrTimeout):
		return time.Time{}, fmt.Errorf("no new holder of the Lease %s within %s (previous holder %q): %s", l, leaseWaitTimeout, old, last)
	case errors.Is(err, poll.ErrAborted):
		return time.Time{}, fmt.Errorf("waiting for the Lease %s: the controller exited", l)
	case err != nil:
		return time.Time{}, err
	}
	return at, nil
}

// newHolder reports whether lease is held by someone other than old with a fresh renewTime, and
// since when.
func newHolder(lease *coordinationv1.Lease, old string, since, now time.Time) (time.Time, bool) {
	sp := lease.Spec
	if sp.HolderIdentity == nil || *sp.HolderIdentity == "" || *sp.HolderIdentity == old || sp.RenewTime == nil {
		return time.Time{}, false
	}
	d := defaultLeaseDuration
	if sp.LeaseDurationSeconds != nil {
		d = time.Duration(*sp.LeaseDurationSeconds) * time.Second
	}
	if now.Sub(sp.RenewTime.Time) > d {
		return time.Time{}, false // a holder that stopped renewing
	}
	if sp.AcquireTime != nil && !sp.AcquireTime.Time.Before(since) && !sp.AcquireTime.Time.After(now) {
		return sp.AcquireTime.Time, true
	}
	return now, true
}

func describeLease(lease *coordinationv1.Lease) string {
	sp := lease.Spec
	holder, renew := "none", "never"
	if sp.HolderIdentity != nil && *sp.HolderIdentity != "" {
		holder = *sp.HolderIdentity
	}
	if sp.RenewTime != nil {
		renew = sp.RenewTime.Time.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprintf("holder %s, renewed %s", holder, renew)
}

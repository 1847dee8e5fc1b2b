// Package leasetiming checks leader-election timings the way client-go's leader elector will,
// for the controller's options and the scenario validator alike.
package leasetiming

import (
	"errors"
	"fmt"
	"time"
)

// controller-runtime's defaults, which a zero timing keeps.
const (
	DefaultLeaseDuration = 15 * time.Second
	DefaultRenewDeadline = 10 * time.Second
	DefaultRetryPeriod   = 2 * time.Second
)

// jitterFactor is client-go's leader-election JitterFactor: a candidate's retry may come this many
// retry periods late, and the renew deadline must leave room for it.
const jitterFactor = 1.2

// Validate applies client-go's rule leaseDuration > renewDeadline > 1.2 × retryPeriod to the timings
// as they will be, zero ones at controller-runtime's defaults.
func Validate(leaseDuration, renewDeadline, retryPeriod time.Duration) error {
	if leaseDuration < 0 || renewDeadline < 0 || retryPeriod < 0 {
		return errors.New("lease timings must not be negative")
	}
	or := func(v, def time.Duration) time.Duration {
		if v == 0 {
			return def
		}
		return v
	}
	lease, renew, retry := or(leaseDuration, DefaultLeaseDuration), or(renewDeadline, DefaultRenewDeadline), or(retryPeriod, DefaultRetryPeriod)
	if lease <= renew || float64(renew) <= jitterFactor*float64(retry) {
		return fmt.Errorf("lease timings %v/%v/%v: need leaseDuration > renewDeadline > %g × retryPeriod", lease, renew, retry, jitterFactor)
	}
	return nil
}

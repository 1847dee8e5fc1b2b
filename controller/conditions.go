package controller

import (
	"context"
	"errors"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/controller/internal/awsclient"
	"github.com/restartsim/restartsim/controller/internal/endpoints"
)

// Reasons of a Ready=False condition (and of the Warning event) when a binding points at
// something that does not exist.
const (
	ReasonServiceNotFound     = "ServiceNotFound"
	ReasonServicePortNotFound = "ServicePortNotFound"
	ReasonTargetGroupNotFound = "TargetGroupNotFound"
)

// BindingError means the TargetGroupBinding points at something missing (its Service, the Service
// port, its target group). Reconcile records it as Ready=False with Reason and a Warning event and
// returns it, so the work queue retries with per-item exponential backoff instead of a hot loop.
type BindingError struct {
	Reason string
	Err    error
}

func (e *BindingError) Error() string { return e.Err.Error() }
func (e *BindingError) Unwrap() error { return e.Err }

// asBindingError classifies err; nil when it is not a binding error.
func asBindingError(err error) *BindingError {
	var be *BindingError
	switch {
	case errors.As(err, &be):
		return be
	case errors.Is(err, endpoints.ErrServicePortNotFound):
		return &BindingError{Reason: ReasonServicePortNotFound, Err: err}
	case awsclient.IsTargetGroupNotFound(err):
		return &BindingError{Reason: ReasonTargetGroupNotFound, Err: err}
	}
	return nil
}

// recordBindingError resets the checkpoint (the binding is not in a reconciled state, so its
// return must be a full reconcile; the Service case resets in backendGone), sets Ready=False and
// emits a Warning event when the condition changes.
func (c *Controller) recordBindingError(ctx context.Context, tgb *v1beta1.TargetGroupBinding, be *BindingError) error {
	var errs []error
	switch be.Reason {
	case ReasonServicePortNotFound:
		errs = append(errs, c.resetCheckpoint(ctx, tgb, resetServicePortNotFound))
	case ReasonTargetGroupNotFound:
		errs = append(errs, c.resetCheckpoint(ctx, tgb, resetTargetGroupNotFound))
	}
	cond := meta.FindStatusCondition(tgb.Status.Conditions, ConditionReady)
	changed := cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != be.Reason || cond.Message != be.Error()
	errs = append(errs, c.setStatus(ctx, tgb, false, be.Reason, be.Error(), false))
	if changed {
		c.recorder.Eventf(tgb, nil, corev1.EventTypeWarning, be.Reason, "Reconcile", "%v", be.Err)
	}
	return errors.Join(errs...)
}

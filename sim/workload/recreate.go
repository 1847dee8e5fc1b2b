package workload

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/apiretry"
)

// ChangeRecreateService is the kind of a RecreateService change.
const ChangeRecreateService = "recreate-service"

// RecreateService deletes the TGB's Service, waits down (wall time), and creates it again with the
// same spec; pods and EndpointSlice are left alone, so the endpoints come back unchanged (upstream
// #4343: a controller that kept its checkpoint through the cleanup skips the reconcile). The Change
// deregisters every target (the controller's cleanup) and registers them again.
func (f *FleetPlan) RecreateService(ctx context.Context, key types.NamespacedName, down time.Duration) (FleetChange, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer t.lock.Unlock()
	ch := f.newChange(live, ChangeRecreateService, t)
	all := f.allTargets(t)
	ch.Deregister, ch.Register = all, all
	c := live.opts.Client
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: t.Namespace, Name: t.Name}}
	if err := apiretry.OnTransient(ctx, func() error { return c.Delete(ctx, svc) }); err != nil && !apierrors.IsNotFound(err) {
		return ch, fmt.Errorf("deleting service %s: %w", key, err)
	}
	select {
	case <-ctx.Done():
		return ch, ctx.Err()
	case <-time.After(down):
	}
	// The deletion may still be in progress: retry AlreadyExists for a while.
	for attempt := 0; ; attempt++ {
		err := apiretry.OnTransient(ctx, func() error { return c.Create(ctx, f.serviceObject(t, live.opts.Labels)) })
		if err == nil {
			return ch, nil
		}
		if !apierrors.IsAlreadyExists(err) || attempt == 50 {
			return ch, fmt.Errorf("creating service %s again: %w", key, err)
		}
		select {
		case <-ctx.Done():
			return ch, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ChangeStaleGate is the kind of a StaleGate change.
const ChangeStaleGate = "stale-gate"

// StaleGate sets the readiness-gate condition of one pod of a gated TGB back to False while AWS
// still holds its healthy target, as a stale writer does (upstream #4737: a condition read from a
// stale cache during a same-IP re-registration). The endpoint stays (held back only by the gate),
// so the TGB's checkpoint still matches: a controller that early-exits on a matching checkpoint
// without looking at the gates leaves the gate stuck. The Change has no target change; Pods names
// the pod whose gate must flip back to True.
func (f *FleetPlan) StaleGate(ctx context.Context, key types.NamespacedName) (FleetChange, error) {
	t, live, err := f.begin(key)
	if err != nil {
		return FleetChange{}, err
	}
	defer t.lock.Unlock()
	ch := f.newChange(live, ChangeStaleGate, t)
	if !t.ReadinessGate || len(t.Pods) == 0 {
		return ch, fmt.Errorf("stale gate: %s has no gated pods", key)
	}
	pod := types.NamespacedName{Namespace: t.Namespace, Name: t.Pods[0].Name}
	ch.Pods = []types.NamespacedName{pod}
	cond := corev1.PodCondition{Type: corev1.PodConditionType(t.GateType()), Status: corev1.ConditionFalse,
		Reason: "RegistrationInProgress", Message: "stale write (restartsim)", LastTransitionTime: metav1.NewTime(live.opts.Clock.Now())}
	patch, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []corev1.PodCondition{cond}}})
	if err != nil {
		return ch, err
	}
	c := live.opts.Client
	obj := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: pod.Namespace, Name: pod.Name}}
	if err := apiretry.OnTransient(ctx, func() error {
		return c.Status().Patch(ctx, obj, client.RawPatch(types.StrategicMergePatchType, patch))
	}); err != nil {
		return ch, fmt.Errorf("stale gate %s: %w", pod, err)
	}
	return ch, nil
}

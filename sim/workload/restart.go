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
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/apiretry"
	"github.com/restartsim/restartsim/sim/kubesim"
)

// ContainerRestart restarts the pod's container in place: the same pod object turns ContainersReady and
// Ready False (its endpoint becomes not ready), and after Options.ContainerRestartDelay the container
// is ready again, Ready follows the kubelet rule (so a gated pod waits for its gate), and the endpoint
// follows Ready. It returns once the container is down; the recovery runs in the background (Close waits
// for it). The Change has no net target change; for a gated TGB, Pods names the pod whose gate must
// re-flip.
func (f *FleetPlan) ContainerRestart(ctx context.Context, pod types.NamespacedName) (FleetChange, error) {
	key, ok := f.tgbOfPod(pod)
	if !ok {
		return FleetChange{}, fmt.Errorf("%w: no pod %s", ErrUnknownTGB, pod)
	}
	t, live, err := f.begin(key)
	if err != nil {
		return FleetChange{}, err
	}
	ch := f.newChange(live, ChangeContainerRestart, t)
	if t.ReadinessGate {
		ch.Pods = []types.NamespacedName{pod}
	}
	err = f.setContainerReady(ctx, live, pod, false)
	if err == nil {
		err = f.syncSlice(ctx, live, t)
	}
	t.lock.Unlock()
	if err != nil {
		return ch, err
	}
	live.wg.Go(func() {
		select {
		case <-live.bg.Done():
			return
		case <-time.After(live.opts.ContainerRestartDelay):
		}
		t.lock.Lock()
		defer t.lock.Unlock()
		err := f.setContainerReady(live.bg, live, pod, true)
		if err == nil {
			err = f.syncSlice(live.bg, live, t)
		}
		if err != nil && !apierrors.IsNotFound(err) && live.bg.Err() == nil {
			live.opts.Logger.Error(err, "container restart: bringing the container back", "pod", pod)
		}
	})
	return ch, nil
}

// setContainerReady patches the container's readiness, ContainersReady, and Ready by the kubelet rule.
// Going down also counts a restart.
func (f *FleetPlan) setContainerReady(ctx context.Context, live *liveState, key types.NamespacedName, ready bool) error {
	c := live.opts.Client
	return retry.OnError(apiretry.Contended, apiretry.Retriable, func() error {
		pod := &corev1.Pod{}
		if err := c.Get(ctx, key, pod); err != nil {
			return err
		}
		now := metav1.NewTime(live.opts.Clock.Now())
		cr := corev1.PodCondition{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: now}
		if !ready {
			cr.Status, cr.Reason, cr.Message = corev1.ConditionFalse, kubesim.ReasonContainersNotReady, "containers with unready status: ["+containerName+"]"
		}
		statuses := make([]corev1.ContainerStatus, len(pod.Status.ContainerStatuses))
		for i, cs := range pod.Status.ContainerStatuses {
			cs.Ready = ready
			cs.Started = &ready
			if ready {
				cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
			} else {
				cs.RestartCount++
				cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 137, Reason: "Error", StartedAt: now, FinishedAt: now}}
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
			}
			statuses[i] = cs
		}
		// Derive Ready from the pod as it will be.
		next := pod.DeepCopy()
		if have := kubesim.PodCondition(next, corev1.ContainersReady); have != nil {
			*have = cr
		} else {
			next.Status.Conditions = append(next.Status.Conditions, cr)
		}
		rd := kubesim.ReadyCondition(next)
		rd.LastTransitionTime = now
		if have := kubesim.PodCondition(pod, corev1.PodReady); have != nil && have.Status == rd.Status {
			rd.LastTransitionTime = have.LastTransitionTime
		}
		patch, err := json.Marshal(map[string]any{
			"metadata": map[string]any{"resourceVersion": pod.ResourceVersion},
			"status":   map[string]any{"conditions": []corev1.PodCondition{cr, rd}, "containerStatuses": statuses},
		})
		if err != nil {
			return err
		}
		return c.Status().Patch(ctx, pod, client.RawPatch(types.StrategicMergePatchType, patch))
	})
}

// Close stops pending container recoveries and waits for running ones. Mutations fail afterwards.
func (f *FleetPlan) Close() {
	f.mu.Lock()
	live := f.live
	f.mu.Unlock()
	if live == nil {
		return
	}
	live.cancel()
	live.wg.Wait()
}

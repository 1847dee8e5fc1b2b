package sut

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

func shExternal(t *testing.T, script string, reps int) *external {
	t.Helper()
	dir := t.TempDir()
	x := testExternal(t, &scenario.External{Command: []string{"/bin/sh", "-c", script}}, dir, dir, reps)
	x.exited = make(chan struct{})
	return x
}

// A controller that exits at once fails its start with its exit status and log: bad input or
// environment (exit code 2), not a warm-up timeout.
func TestExternalExitAtStartIsBadInput(t *testing.T) {
	x := shExternal(t, "echo no IngressClassParams >&2; exit 3", 1)
	err := x.Start(context.Background())
	if err == nil {
		t.Fatal("Start succeeded for a controller that exits at once")
	}
	var ce *runerr.ControllerExitError
	if !runerr.IsBadInput(err) || !errors.As(err, &ce) {
		t.Fatalf("error %v (%T): want bad input wrapping a *ControllerExitError", err, err)
	}
	if ce.Status != "exit status 3" || ce.Log != filepath.Join(x.dir, "controller-0.log") {
		t.Errorf("exit error %+v: want exit status 3 and log %s", ce, filepath.Join(x.dir, "controller-0.log"))
	}
	if !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), ce.Log) {
		t.Errorf("message %q does not name the status and the log", err)
	}
}

// A controller that dies later cancels the run's context at once with the exit as its cause: a
// start failure before the warm-up converged, a violation in the measured phase. Processes the
// harness stops are not reported.
func TestExternalExitLaterCancelsTheRun(t *testing.T) {
	x := shExternal(t, "sleep 0.5; exit 4", 1)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := x.Start(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := WatchExit(ctx, x)
	defer stop()
	select {
	case <-runCtx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the run's context was not cancelled 10 s after the controller exited")
	}
	var ce *runerr.ControllerExitError
	if !errors.As(context.Cause(runCtx), &ce) || ce.Status != "exit status 4" {
		t.Fatalf("cause %v, want the controller's exit status 4", context.Cause(runCtx))
	}
	timeout := errors.New("warm-up timed out")
	if err := StartFailure(runCtx, timeout); !runerr.IsBadInput(err) || !strings.Contains(err.Error(), "exit status 4") {
		t.Errorf("startFailure = %v, want bad input naming exit status 4", err)
	}
	var v *results.ViolationError
	if err := MeasuredFailure(runCtx, timeout); !errors.As(err, &v) || v.Kind != results.ViolationInvariant || !strings.Contains(err.Error(), "controller-0.log") {
		t.Errorf("measuredFailure = %v, want an invariant violation naming the log", err)
	}
	if err := StartFailure(ctx, timeout); err != timeout { //nolint:errorlint // the very error, not a wrapper
		t.Errorf("startFailure without an exit = %v, want the error unchanged", err)
	}

	quiet := shExternal(t, "sleep 300", 2)
	if err := quiet.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := quiet.StopLeader(ctx, scenario.RestartCrash); err != nil {
		t.Fatal(err)
	}
	quiet.Stop()
	select {
	case <-quiet.Exited():
		t.Fatalf("stopped processes reported as exiting on their own: %v", quiet.ExitErr())
	case <-time.After(200 * time.Millisecond):
	}
}

func TestNewLeaseHolder(t *testing.T) {
	now := time.Now()
	at := func(d time.Duration) *metav1.MicroTime { return ptr.To(metav1.NewMicroTime(now.Add(d))) }
	lease := func(holder string, acquired, renewed *metav1.MicroTime) *coordinationv1.Lease {
		return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To(holder), LeaseDurationSeconds: ptr.To[int32](15),
			AcquireTime: acquired, RenewTime: renewed}}
	}
	since := now.Add(-10 * time.Second)
	for _, tc := range []struct {
		name  string
		lease *coordinationv1.Lease
		ok    bool
		want  time.Time
	}{
		{"same holder", lease("a", at(-time.Minute), at(0)), false, time.Time{}},
		{"no holder", lease("", nil, nil), false, time.Time{}},
		{"new holder", lease("b", at(-2*time.Second), at(-time.Second)), true, now.Add(-2 * time.Second)},
		{"new holder, stale renew", lease("b", at(-time.Minute), at(-20*time.Second)), false, time.Time{}},
		{"new holder acquired before the restart", lease("b", at(-time.Minute), at(0)), true, now},
	} {
		got, ok := newHolder(tc.lease, "a", since, now)
		if ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("%s: %v %v, want %v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// The lease watch sees a restart's new leader when the Lease changes hands on a real API server,
// at the new holder's acquireTime.
func TestLeaseWatchSeesTheNewHolder(t *testing.T) {
	testenv.RequireAssets(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	e, err := env.Start(ctx, env.Options{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Stop(); err != nil {
			t.Logf("stopping the environment: %v", err)
		}
	}()
	cs := kubernetes.NewForConfigOrDie(e.Config)
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "lw"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	now := metav1.NewMicroTime(time.Now())
	l := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: "lw", Name: "leader"},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("old"), LeaseDurationSeconds: ptr.To[int32](15), AcquireTime: &now, RenewTime: &now}}
	if l, err = cs.CoordinationV1().Leases("lw").Create(ctx, l, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w, err := newLeaseWatch(e.Config, "lw", "leader")
	if err != nil {
		t.Fatal(err)
	}
	w.holderBeforeStop(ctx)
	if got := w.previousHolder(); got != "old" {
		t.Fatalf("holder before the stop = %q, want old", got)
	}
	stopped := time.Now()
	var acquired metav1.MicroTime
	go func() {
		time.Sleep(500 * time.Millisecond)
		acquired = metav1.NewMicroTime(time.Now())
		l.Spec.HolderIdentity, l.Spec.AcquireTime, l.Spec.RenewTime = ptr.To("new"), &acquired, &acquired
		if _, err := cs.CoordinationV1().Leases("lw").Update(ctx, l, metav1.UpdateOptions{}); err != nil {
			t.Error(err)
		}
	}()
	at, err := w.await(ctx, "old", stopped, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := at.Sub(acquired.Time); d > time.Millisecond || d < -time.Millisecond || at.Before(stopped.Add(400*time.Millisecond)) {
		t.Errorf("leads at %v, want the new holder's acquireTime %v", at, acquired.Time)
	}
}

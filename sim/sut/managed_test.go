package sut

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/internal/testwait"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// managedFixture is an API server and fakeaws for managed replicas.
type managedFixture struct {
	env   *env.Env
	cloud backend.Backend
	creds backend.Creds
}

func startManagedFixture(t *testing.T) *managedFixture {
	t.Helper()
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("m.yaml", []byte("apiVersion: restartsim/v1\nkind: Scenario\nname: m\nfleet: {targetGroupBindings: 1}\ncontroller: {strategies: [{name: s}]}\ntimeline: [{action: restart}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cr := backend.Creds{Region: scenario.DefaultRegion, AccessKey: "test", SecretKey: "test"}
	dir := t.TempDir()
	e, err := env.Start(t.Context(), env.Options{WorkDir: filepath.Join(dir, "env")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = e.Stop() })
	cloud, err := backend.Start(backend.Config{Creds: cr, AWS: &sc.AWS, CallLog: filepath.Join(dir, "aws-calls.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cloud.Close() })
	return &managedFixture{env: e, cloud: cloud, creds: cr}
}

// configMaps is a setup registering a controller that watches ConfigMaps and does nothing.
func configMaps(_ context.Context, mgr manager.Manager, _ ManagerEnv) error {
	return ctrl.NewControllerManagedBy(mgr).Named("configmaps").For(&corev1.ConfigMap{}).
		Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
}

func (f *managedFixture) managed(t *testing.T, lease string, replicas int, setup ManagerSetup) *managed {
	t.Helper()
	d := func(v time.Duration) *scenario.Duration { return &scenario.Duration{Duration: v} }
	st := scenario.Strategy{Name: "mine", InProcess: &scenario.InProcess{LeaderElectionID: lease},
		LeaseDuration: d(3 * time.Second), RenewDeadline: d(2500 * time.Millisecond), RetryPeriod: d(300 * time.Millisecond)}
	c, err := NewManaged(ManagedConfig{ReplicaConfig: ReplicaConfig{Kube: f.env.ControllerConfig, AWS: f.cloud, Creds: f.creds,
		Strategy: st, Replicas: replicas, Namespaces: []string{"default"}, LeaseNamespace: "default",
		Logger: logr.Discard()}, Setup: setup})
	if err != nil {
		t.Fatal(err)
	}
	m := c.(*managed)
	t.Cleanup(m.Stop)
	return m
}

// TestManaged runs the managed replicas' cases on one API server, each on a Lease of its own.
func TestManaged(t *testing.T) {
	f := startManagedFixture(t)
	t.Run("restarts", func(t *testing.T) { testManagedRestarts(t, f) })
	t.Run("failures", func(t *testing.T) { testManagedFailures(t, f) })
}

// testManagedRestarts: a graceful stop releases the Lease, so the standby leads at once; a crash
// does not, so the replacement waits for the Lease to expire. Each leader's cache sync and the
// controllers' queue come from the manager itself.
func testManagedRestarts(t *testing.T, f *managedFixture) {
	m := f.managed(t, "restarts", 2, configMaps)
	ctx := t.Context()
	if err := m.Start(ctx); err != nil {
		t.Fatal(err)
	}
	waitSynced(t, m, 1)
	testwait.Until(t, 20*time.Second, "the configmaps controller's workqueue_depth in controller-runtime's registry", func() bool {
		_, ok := m.QueueDepth()["workqueue_depth"]
		return ok
	})
	if err := m.AwaitSettled(ctx, 20*time.Second); err != nil {
		t.Fatal(err)
	}
	restart := func(mode string) time.Duration {
		stopped, err := m.StopLeader(ctx, mode)
		if err != nil {
			t.Fatal(err)
		}
		_, leads, err := m.StartReplacement(ctx)
		if err != nil {
			t.Fatal(err)
		}
		at, err := leads(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return at.Sub(stopped)
	}
	if took := restart(scenario.RestartGraceful); took >= 2*time.Second {
		t.Errorf("graceful: the next leader took %v, want well under the 3 s Lease (it was released)", took)
	}
	waitSynced(t, m, 2) // before the crash: a leader crashed while it syncs never syncs
	// The Lease was last renewed at most a retry period before the crash.
	if took := restart(scenario.RestartCrash); took < 2700*time.Millisecond {
		t.Errorf("crash: the next leader took %v, want the 3 s Lease to expire first (a crash releases nothing)", took)
	}
	waitSynced(t, m, 3)
}

// testManagedFailures: a setup's error fails the start as bad input; a manager that returns on its
// own closes Exited with the replica's error.
func testManagedFailures(t *testing.T, f *managedFixture) {
	bad := f.managed(t, "setup-fails", 1, func(context.Context, manager.Manager, ManagerEnv) error { return errors.New("no such flag") })
	err := bad.Start(t.Context())
	if !runerr.IsBadInput(err) || !strings.Contains(err.Error(), "replica 0: setup: no such flag") {
		t.Errorf("setup error: %v, want bad input naming the replica and the cause", err)
	}
	ends := f.managed(t, "manager-ends", 1, func(_ context.Context, mgr manager.Manager, _ ManagerEnv) error {
		return mgr.Add(manager.RunnableFunc(func(context.Context) error { return errors.New("lost my mind") }))
	})
	_ = ends.Start(t.Context())
	select {
	case <-ends.Exited():
	case <-time.After(testwait.Scale(t, 20*time.Second)):
		t.Fatal("the manager's error did not close Exited")
	}
	var exit *runerr.ControllerExitError
	if !errors.As(ends.ExitErr(), &exit) || exit.Replica != 0 || !strings.Contains(exit.Status, "lost my mind") {
		t.Errorf("ExitErr = %v, want replica 0's error", ends.ExitErr())
	}
}

// waitSynced waits until n leaders synced their caches, and says which replicas did otherwise.
func waitSynced(t *testing.T, m *managed, n int) {
	t.Helper()
	testwait.UntilDetail(t, 20*time.Second, fmt.Sprintf("%d leaders' caches synced", n), func() (bool, string) {
		synced := len(m.Observed().CachesSynced)
		detail := fmt.Sprintf("exit: %v;", m.ExitErr())
		m.mu.Lock()
		defer m.mu.Unlock()
		for _, r := range m.all {
			at, _ := r.sig.get()
			led := false
			select {
			case <-r.elected:
				led = true
			default:
			}
			detail += fmt.Sprintf(" replica %d: led %v, informers %d, synced %v;", r.id, led, r.informers.n.Load(), !at.IsZero())
		}
		return synced == n, detail
	})
}

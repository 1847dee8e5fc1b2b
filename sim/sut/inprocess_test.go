package sut

import (
	"context"
	"path/filepath"
	"reflect"
	"runtime"
	"testing"
	"time"
	"weak"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestWarmupWorkersOnlyBeforeTheFirstRestart: the warm-up instance gets controller.warmupWorkers, every
// instance started by a restart the strategy's own count.
func TestWarmupWorkersOnlyBeforeTheFirstRestart(t *testing.T) {
	p := &inProcess{strategy: scenario.Strategy{Name: "s", MaxConcurrentReconciles: 3}, replicas: 1, warmupWorkers: 24}
	workers := func() int {
		o, err := p.options(0, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		return o.MaxConcurrentReconciles
	}
	if got := workers(); got != 24 {
		t.Fatalf("warm-up instance: %d workers, want 24", got)
	}
	p.restarted = true
	if got := workers(); got != 3 {
		t.Fatalf("restarted instance: %d workers, want the strategy's 3", got)
	}
	p = &inProcess{strategy: scenario.Strategy{Name: "s", MaxConcurrentReconciles: 5}, replicas: 1}
	if got := workers(); got != 5 {
		t.Fatalf("no warmupWorkers: %d workers, want the strategy's 5", got)
	}
}

// TestCrashedReplicaIsCollected: once a crashed replica stopped, nothing keeps its manager (and so
// its caches, every object of the fleet) reachable while its replacement builds its own. At 10k
// bindings the crashed instance's caches had stayed in the heap until the end of the phase.
func TestCrashedReplicaIsCollected(t *testing.T) {
	testenv.RequireAssets(t)
	sc, err := scenario.Parse("it.yaml", []byte(`apiVersion: restartsim/v1
kind: Scenario
name: it
timeScale: 10
aws: {warmupProfile: unlimited}
fleet: {targetGroupBindings: 8}
controller:
  strategies: [{name: ckpt, checkpoint: annotation}]
timeline: [{action: restart}]
`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	dir := t.TempDir()
	e, err := env.Start(ctx, env.Options{WorkDir: filepath.Join(dir, "env")})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := e.Stop(); err != nil {
			t.Logf("stopping the environment: %v", err)
		}
	}()
	cr := backend.Creds{Region: sc.AWS.Region, AccessKey: "test", SecretKey: "test"}
	cloud, err := backend.Start(backend.Config{Creds: cr, AWS: &sc.AWS, Clock: sc.Clock(), CallLog: filepath.Join(dir, "aws-calls.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	defer cloud.Close()
	p := newInProcess(InProcessConfig{ReplicaConfig: ReplicaConfig{Kube: e.ControllerConfig, AWS: cloud, Creds: cr,
		Strategy: sc.Controller.Strategies[0], Clock: sc.Clock(), Replicas: 1, Namespaces: []string{"default"},
		Logger: logr.Discard()}})
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer p.Stop()
	// The manager is an interface around a pointer to controller-runtime's unexported type: watch
	// that allocation.
	mgr := weak.Make((*byte)(reflect.ValueOf(p.leader().mgr).UnsafePointer()))
	if _, err := p.StopLeader(ctx, scenario.RestartCrash); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.StartReplacement(ctx); err != nil {
		t.Fatal(err)
	}
	// A crashed manager stops in the background, within its 5 s graceful shutdown timeout.
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		runtime.GC()
		if mgr.Value() == nil {
			return
		}
	}
	t.Fatal("the crashed replica's manager is still reachable 15 s after the crash")
}

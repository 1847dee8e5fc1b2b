package sut

import (
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// Config is one strategy run's controller under test.
type Config struct {
	Env      *env.Env
	AWS      backend.Backend
	Creds    backend.Creds
	Scenario *scenario.Scenario
	Strategy scenario.Strategy
	// External is the arm's external controller (nil: the reference controller).
	External *scenario.External
	// Namespaces are the fleet's; LeaseNamespace holds the Lease and the resume watermark.
	Namespaces     []string
	LeaseNamespace string
	Seed           int64
	// LoadBalancers runs the reference controller's Ingress and Service reconcilers, tagging the
	// stacks with ClusterName.
	LoadBalancers bool
	ClusterName   string
	// Dir receives an external controller's logs and files.
	Dir string
	// Logger is the harness's; ControllerLog receives the in-process replicas' own logs.
	Logger        logr.Logger
	ControllerLog logr.Logger
	// Setup and NewScheme build the replicas of an inProcess strategy (see ManagedConfig).
	Setup     ManagerSetup
	NewScheme func() *runtime.Scheme
}

// New returns the controller under test, not yet started: the scenario's external controller,
// the reference controller's binary run out of process (a strategy's binary), managers a Go test
// fills (an inProcess strategy), or in-process replicas of the reference controller.
func New(c Config) (Controllers, error) {
	sc := c.Scenario
	rc := ReplicaConfig{Kube: c.Env.ControllerConfig, AWS: c.AWS, Creds: c.Creds, Strategy: c.Strategy,
		Clock: sc.Clock(), Replicas: sc.Controller.Replicas, Namespaces: c.Namespaces, LeaseNamespace: c.LeaseNamespace,
		Logger: c.ControllerLog}
	if c.Strategy.InProcess != nil {
		return NewManaged(ManagedConfig{ReplicaConfig: rc, Setup: c.Setup, NewScheme: c.NewScheme, Dir: c.Dir})
	}
	ref := newInProcess(InProcessConfig{ReplicaConfig: rc, Seed: uint64(c.Seed), WarmupWorkers: sc.Controller.WarmupWorkers,
		LoadBalancers: c.LoadBalancers, ClusterName: c.ClusterName})
	x := c.External
	if x == nil && c.Strategy.Binary == "" {
		return ref, nil
	}
	if x == nil {
		var err error
		if x, err = OutOfProcess(ref, c.Strategy); err != nil {
			return nil, runerr.BadInput(fmt.Errorf("strategy %s: %w", c.Strategy.Name, err))
		}
	}
	return NewExternal(x, c.Env, c.AWS, c.Creds, sc, c.LeaseNamespace, c.Dir, c.Logger)
}

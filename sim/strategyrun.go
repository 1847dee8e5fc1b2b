package sim

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/actions"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/record"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/workload"
)

// strategyOutcome is what one strategy's (one repeat's) run measured.
type strategyOutcome struct {
	name       string
	out        *measure.Output
	invariants results.Invariants
	events     []results.Event
	k8sVersion string
	// fleetSetup is the wall time of this run's own fleet creation (zero with a snapshot).
	fleetSetup time.Duration
	// input is what the measurements read.
	input *measure.Input
}

// strategyRun is one strategy's run on a fresh environment, fakeaws and fleet, in phases: each start
// step returns its phase whole (what it started, whose stops it registered), and the steps after it
// read it. The lifecycle stops everything, last started first, however far the run got.
type strategyRun struct {
	strategyInputs
	stops lifecycle

	*clusterPhase
	// cloud is startAWS's fakeaws (or the remote AWS endpoint).
	cloud backend.Backend
	*fleetPhase
	*controllerPhase
}

// strategyInputs are what runStrategy is given.
type strategyInputs struct {
	o     runConfig
	sc    *scenario.Scenario
	strat scenario.Strategy
	ext   *scenario.External // the arm's external controller; nil runs the reference controller
	// conv is the arm whose controller converges the fleet until the first restart starts this
	// arm's (convergeWith; nil: this arm's own).
	conv *arm
	seed int64
	dir  string
	snap *fleetSnapshot // with a snapshot, the environment and fakeaws start from copies of its fleet
	// cluster is this strategy run's place on a kubeconfig cluster (nil on envtest).
	cluster *clusterRun
	log     logr.Logger
}

// clusterPhase is the Kubernetes side startCluster starts.
type clusterPhase struct {
	env     *env.Env
	client  client.Client
	ctrlLog logr.Logger // the controller's log file
}

// fleetPhase is the fleet startFleet creates (or adopts) and the simulators that serve it.
type fleetPhase struct {
	labels    map[string]string
	spec      workload.Spec
	fleet     *workload.FleetPlan
	simulator *kubesim.Simulator
	// fleetSetup is the wall time of the fleet's creation (zero when adopted from a snapshot).
	fleetSetup time.Duration
	// objects are the scenario's object groups, compiled and rendered with the run's environment
	// (nil: none).
	objects *actions.ObjectDeps
}

// controllerPhase is the controller under test startController starts, and the harness's watches of it.
type controllerPhase struct {
	leaseNS string
	ctrls   sut.Controllers
	// runCtx ends, with the cause as its error, when an external controller exits on its own or the
	// controller cannot progress (progress).
	runCtx          context.Context
	stopControllers func()
	// recorders record the controller instances and the machine, each from its moment (memory
	// from the instances' start) to the measured phase's end.
	recorders *record.Set
	watch     *observe.Watch
	stopWatch func()
	checker   *observe.Checker
	removed   *observe.Removed
	// objectsWatch watches the object groups' objects (nil: none).
	objectsWatch *observe.Objects
	// progress ends runCtx when the controller cannot progress (refusalwatch.go).
	progress *progressWatch
}

// lifecycle stops what a run started, last started first.
type lifecycle []func()

func (l *lifecycle) add(stop func()) { *l = append(*l, stop) }

func (l *lifecycle) stop() {
	for i := len(*l) - 1; i >= 0; i-- {
		(*l)[i]()
	}
	*l = nil
}

// resumes reports whether the reference controller runs with the resume fast path.
func (r *strategyRun) resumes() bool { return resumes(arm{st: r.strat, ext: r.ext}) }

// hasLoadBalancers reports whether the fleet has a load balancer side (Ingresses or Services of
// type LoadBalancer), which the reference controller's load balancer reconcilers serve.
func (r *strategyRun) hasLoadBalancers() bool {
	return r.spec.Ingresses.HasLoadBalancers()
}

package actions

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/observe"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/sut"
	"github.com/restartsim/restartsim/sim/workload"
)

// timeScale is the tests' scenario seconds per wall second.
const timeScale = 10

// rig is an executor on a fake wall clock at timeScale, over a fleet in a fake API server, a
// controller that restarts when told and an AWS that records what it is asked.
type rig struct {
	ex    *Executor
	wall  *clocktesting.FakeClock
	t0    time.Time
	aws   *recordingAWS
	ctrls *fakeControllers
	fleet *workload.FleetPlan
	k8s   client.Client
}

func newRig(t *testing.T, sc *scenario.Scenario, spec workload.Spec) *rig {
	t.Helper()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	wall := clocktesting.NewFakeClock(t0)
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	_ = v1beta1.AddToScheme(s)
	k8s := fake.NewClientBuilder().WithScheme(s).Build()
	r := &rig{wall: wall, t0: t0, aws: &recordingAWS{now: wall.Now}, k8s: k8s}
	r.ctrls = &fakeControllers{wall: wall, leadAfter: time.Second}
	if spec.Namespaces > 0 {
		r.fleet = workload.Plan(spec, rand.New(rand.NewPCG(1, 1)))
		if _, err := r.fleet.Create(context.Background(), workload.Options{Client: k8s, AWS: &provisioner{}, Labels: map[string]string{"run": "t"}, Clock: wall}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(r.fleet.Close)
	}
	sc.TimeScale = timeScale
	r.ex = New(Deps{Scenario: sc, Fleet: r.fleet, Controllers: r.ctrls, AWS: r.aws, Client: k8s, Seed: 7, Removed: &observe.Removed{},
		Clock: scenario.NewClock(timeScale, wall), T0: t0, Logger: logr.Discard()})
	return r
}

// advanceWhenWaiting steps the wall clock by d each time something waits on it, until ctx ends:
// the fake clock has no way to announce a new waiter, so it is polled for one.
func (r *rig) advanceWhenWaiting(ctx context.Context, d time.Duration) {
	go func() {
		_ = wait.PollUntilContextCancel(ctx, time.Millisecond, true, func(context.Context) (bool, error) {
			if r.wall.HasWaiters() {
				r.wall.Step(d)
			}
			return false, nil
		})
	}()
}

// fakeControllers is a controller whose leader stops at once and whose replacement leads
// leadAfter of wall time after it started.
type fakeControllers struct {
	sut.Controllers
	wall      *clocktesting.FakeClock
	leadAfter time.Duration
	mu        sync.Mutex
	stops     []string
	started   []time.Time
}

func (c *fakeControllers) StopLeader(_ context.Context, mode string) (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stops = append(c.stops, mode)
	return c.wall.Now(), nil
}

func (c *fakeControllers) StartReplacement(context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	started := c.wall.Now()
	c.started = append(c.started, started)
	return started, func(context.Context) (time.Time, error) { return started.Add(c.leadAfter), nil }, nil
}

func (c *fakeControllers) ElectsLeader() bool { return true }

func (c *fakeControllers) startedCount() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.started)
}

// recordingAWS records the fault settings it is asked for, with the wall time.
type recordingAWS struct {
	backend.Backend
	now   func() time.Time
	mu    sync.Mutex
	calls []awsCall
}

type awsCall struct {
	what string
	at   time.Time
}

func (a *recordingAWS) record(format string, args ...any) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, awsCall{what: fmt.Sprintf(format, args...), at: a.now()})
	return nil
}

func (a *recordingAWS) recorded() []awsCall {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]awsCall(nil), a.calls...)
}

func (a *recordingAWS) Now() (time.Time, error)      { return a.now(), nil }
func (a *recordingAWS) SetProfile(name string) error { return a.record("profile %s", name) }
func (a *recordingAWS) SetLimit(op string, rate float64, burst int) error {
	return a.record("limit %s %g/%d", op, rate, burst)
}
func (a *recordingAWS) ClearLimit(op string) error { return a.record("clear limit %s", op) }
func (a *recordingAWS) SetLatency(op string, base, jitter time.Duration) error {
	return a.record("latency %s %s±%s", op, base, jitter)
}
func (a *recordingAWS) SetErrorRate(op string, rate float64, code string) error {
	return a.record("errors %s %g %s", op, rate, code)
}
func (a *recordingAWS) AddOutage(start time.Time, d time.Duration, services ...string) error {
	return a.record("outage %s %v", d, services)
}
func (a *recordingAWS) Targets(string) ([]fakeaws.TargetHealth, error) { return nil, nil }

// provisioner makes up the AWS resources a fleet is created with.
type provisioner struct {
	mu sync.Mutex
	n  int
}

func (p *provisioner) next(prefix string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	return fmt.Sprintf("%s-%d", prefix, p.n)
}

func (p *provisioner) CreateTargetGroup(_ context.Context, name string, _ v1beta1.TargetType, _ int32, _ string) (string, error) {
	return "arn:aws:elasticloadbalancing:us-west-2:123456789012:targetgroup/" + name + "/" + p.next("tg"), nil
}
func (p *provisioner) CreateSecurityGroup(context.Context, string, string) (string, error) {
	return p.next("sg"), nil
}
func (p *provisioner) TagResources(context.Context, []string, map[string]string) error { return nil }
func (p *provisioner) SeedInstance(context.Context, string, string, []string) error    { return nil }
func (p *provisioner) SeedNetworkInterface(context.Context, workload.NetworkInterface) error {
	return nil
}
func (p *provisioner) SeedCertificate(context.Context, string, string) error { return nil }

func (a *recordingAWS) CallsSince(int) ([]fakeaws.Call, error) { return nil, nil }

// recordedAt are the scenario seconds of the changes, readiness gates and drifts recorded so far.
func (e *Executor) recordedAt() []float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []float64
	for _, c := range e.changes {
		out = append(out, c.At)
	}
	for _, g := range e.gated {
		out = append(out, e.sec(g.at))
	}
	for _, d := range e.drifts {
		out = append(out, d.At)
	}
	return out
}

// lastEvent is the last event recorded.
func (e *Executor) lastEvent(t *testing.T) results.Event {
	t.Helper()
	evs := e.Events()
	if len(evs) == 0 {
		t.Fatal("no event recorded")
	}
	return evs[len(evs)-1]
}

// The load balancers' state, which the watch of Ingress-side changes reads: none.
func (a *recordingAWS) LoadBalancers() []fakeaws.LoadBalancer        { return nil }
func (a *recordingAWS) Listeners(string) ([]fakeaws.Listener, error) { return nil, nil }
func (a *recordingAWS) Rules(string) ([]fakeaws.ListenerRule, error) { return nil, nil }
func (a *recordingAWS) TargetGroups() []fakeaws.TargetGroup          { return nil }

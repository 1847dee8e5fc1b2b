package sut

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/internal/poll"
	"github.com/restartsim/restartsim/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// gracefulStopTimeout bounds a SIGTERM'd controller's shutdown before SIGKILL.
const gracefulStopTimeout = 30 * time.Second

// external runs any controller binary as child processes, one per replica.
type external struct {
	x       *scenario.External
	base    scenario.TemplateData
	command commandTemplates
	env     []string
	dir     string
	secrets string // where the webhook certificates and keys go: the environment's private directory
	log     logr.Logger
	reps    int
	mu      sync.Mutex
	ctx     context.Context // Start's; children are killed when it ends
	procs   []*proc
	next    int
	metrics *http.Client
	// replacements are the processes restarts started, in order; all is every process started.
	replacements []*proc
	all          []*proc
	// atStops is, per restart, every process that ran just before the stop; firstStop is when
	// the first restart stopped the leader.
	atStops   [][]results.InstanceAtStop
	firstStop time.Time
	// synced matches the output line that says a process's caches synced (nil: never told).
	synced *regexp.Regexp
	// lease is the Lease the leader holds (nil: the harness cannot tell who leads).
	lease *leaseWatch
	// exited is closed once a process ended without being stopped; exitErr says which.
	exited   chan struct{}
	exitOnce sync.Once
	exitErr  error
	// aws is the fakeaws the processes call, whose call log says what it refused them (nil: none).
	aws backend.Backend
}

// Exited is closed once a controller process ended without being stopped.
func (x *external) Exited() <-chan struct{} { return x.exited }

// ExitErr is the first process that ended on its own (nil before Exited is closed).
func (x *external) ExitErr() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.exitErr
}

// exitedOnItsOwn records p's unexpected end.
func (x *external) exitedOnItsOwn(p *proc, err error) {
	status := "exit status 0"
	if err != nil {
		status = err.Error()
	}
	ce := &runerr.ControllerExitError{Replica: p.id, Status: status, Log: p.logf.Name(), After: time.Since(p.started).Round(time.Millisecond).String(),
		LastError: lastErrorLine(p.logf.Name())}
	if x.aws != nil {
		if calls, err := x.aws.CallsSince(0); err == nil {
			ce.Refused = refusals(calls, p.awsFrom)
		}
	}
	x.exitOnce.Do(func() {
		x.mu.Lock()
		x.exitErr = ce
		x.mu.Unlock()
		x.log.Info("external controller exited on its own", "replica", p.id, "status", status, "log", ce.Log)
		close(x.exited)
	})
}

// killAll SIGKILLs every running child's process group and waits for them.
func (x *external) killAll() {
	x.mu.Lock()
	procs := append([]*proc(nil), x.procs...)
	x.mu.Unlock()
	for _, p := range procs {
		p.stopping.Store(true)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

type proc struct {
	id      int
	cmd     *exec.Cmd
	data    scenario.TemplateData
	done    chan struct{}
	logf    *os.File
	started time.Time
	// awsFrom is fakeaws's time when the process started: its calls are the ones from then on.
	awsFrom time.Time
	// watch records the process's CPU time and when its log said its caches synced.
	watch *procWatch
	// stopping is set before the harness stops the process: its end is then expected.
	stopping atomic.Bool
}

func (x *external) Start(ctx context.Context) error {
	// A cancelled run (SIGINT, test deadline) kills every child, including one a Restart is starting.
	x.mu.Lock()
	x.ctx = ctx
	x.mu.Unlock()
	context.AfterFunc(ctx, x.killAll)
	for i := 0; i < x.reps; i++ {
		if _, err := x.start(); err != nil {
			return err
		}
		if i == 0 && x.lease != nil {
			// The others start once the first leads, so that the oldest replica is the leader; and
			// the measured phase starts with a leader in place (a warm-up on a converged fleet can
			// pass before the controller took its Lease, and a crash then would find none to expire).
			at, err := x.lease.await(ctx, "", time.Time{}, x.exited)
			if err != nil {
				return x.startErr(err)
			}
			x.log.Info("external controller leads", "replica", 0, "lease", x.lease.String(), "after", at.Sub(x.procs[0].started).Round(time.Millisecond))
		}
	}
	// The warm-up that follows waits until the controller has converged the fleet (and fails the
	// run when a process exits); here, only make sure it did not exit at once.
	select {
	case <-x.exited:
		return x.startErr(nil)
	case <-time.After(200 * time.Millisecond):
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// settlePolls is how many consecutive samples of an empty work queue count as settled.
const settlePolls = 3

// AwaitSettled waits until the leader has synced its caches (when cacheSyncedLog tells) and its
// work queue is empty (when its metrics tell): on a fleet already converged (a snapshot) AWS holds
// every target before the controller has reconciled anything, and its start-up reconcile must not
// spill into the measured phase.
func (x *external) AwaitSettled(ctx context.Context, timeout time.Duration) error {
	empty := 0
	synced, depth := true, 0.0
	err := poll.Until(ctx, timeout, poll.Every(200*time.Millisecond), func() (bool, error) {
		p := x.oldest()
		synced = true
		if p != nil && x.synced != nil {
			_, at := p.watch.stats()
			synced = !at.IsZero()
		}
		var known bool
		depth, known = x.QueueDepth()["workqueue_depth"]
		if synced && (!known || depth == 0) {
			empty++
		} else {
			empty = 0
		}
		return empty >= settlePolls, nil
	})
	if errors.Is(err, poll.ErrTimeout) {
		return &results.ViolationError{Kind: results.ViolationInvariant, Details: []string{fmt.Sprintf(
			"warm-up: the external controller did not settle within %s (caches synced: %v, work queue depth %g)", timeout, synced, depth)}}
	}
	return err
}

// startErr is the error of a start that failed with err or because a process exited.
func (x *external) startErr(err error) error {
	select {
	case <-x.exited:
		return runerr.BadInput(x.ExitErr())
	default:
		return err
	}
}

// oldest is the longest-running process: the leader, as far as the simulation can tell.
func (x *external) oldest() *proc {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, p := range x.procs {
		select {
		case <-p.done:
		default:
			return p
		}
	}
	return nil
}

func (x *external) stop(p *proc, crash bool) {
	p.stopping.Store(true)
	if crash {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	} else {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(gracefulStopTimeout):
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		}
	}
	<-p.done
	x.mu.Lock()
	for i, q := range x.procs {
		if q == p {
			x.procs = append(x.procs[:i], x.procs[i+1:]...)
			break
		}
	}
	x.mu.Unlock()
}

func (x *external) StopLeader(ctx context.Context, mode string) (time.Time, error) {
	p := x.oldest()
	if p == nil {
		return time.Time{}, errors.New("no running external controller to restart")
	}
	if x.lease != nil {
		x.lease.holderBeforeStop(ctx)
	}
	x.noteAtStop(p)
	stopped := time.Now()
	x.mu.Lock()
	if x.firstStop.IsZero() {
		x.firstStop = stopped
	}
	x.mu.Unlock()
	x.stop(p, mode == scenario.RestartCrash)
	return stopped, nil
}

func (x *external) StartReplacement(context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	p, err := x.start()
	if err != nil {
		return time.Time{}, nil, err
	}
	x.mu.Lock()
	x.replacements = append(x.replacements, p)
	x.mu.Unlock()
	started := p.started
	if x.lease == nil {
		// The simulation cannot tell when an external controller leads: as far as it knows, at once.
		return started, func(context.Context) (time.Time, error) { return started, nil }, nil
	}
	old := x.lease.previousHolder()
	return started, func(ctx context.Context) (time.Time, error) {
		at, err := x.lease.await(ctx, old, started, x.exited)
		if err != nil {
			select {
			case <-x.exited:
				return time.Time{}, x.ExitErr()
			default:
				return time.Time{}, err
			}
		}
		x.log.Info("new external controller leads", "replica", p.id, "lease", x.lease.String(), "waitedForLease", at.Sub(started).Round(time.Millisecond))
		return at, nil
	}, nil
}

func (x *external) Stop() {
	x.mu.Lock()
	procs := append([]*proc(nil), x.procs...)
	x.mu.Unlock()
	for _, p := range procs {
		x.stop(p, false)
	}
}

// numberFrom implements takeoverStarter.
func (x *external) numberFrom(first int) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.next = first
}

// startTakeover implements takeoverStarter: the process is this controller's first, and the
// replacement of the restart that stopped the other controller's. With a Lease, it leads once the
// Lease has a holder other than the one it had now (the other controller's, when both hold the
// same Lease, which a crashed instance keeps until it expires).
func (x *external) startTakeover(ctx context.Context) (time.Time, func(context.Context) (time.Time, error), error) {
	x.mu.Lock()
	x.ctx = ctx
	x.firstStop = time.Now()
	x.mu.Unlock()
	context.AfterFunc(ctx, x.killAll)
	if x.lease != nil {
		x.lease.holderBeforeStop(ctx)
	}
	return x.StartReplacement(ctx)
}

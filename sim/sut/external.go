package sut

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"text/template"
	"time"

	"github.com/go-logr/logr"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/restartsim/restartsim/reports/results"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/measure"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// gracefulStopTimeout bounds a SIGTERM'd controller's shutdown before SIGKILL.
const gracefulStopTimeout = 30 * time.Second

// external runs any controller binary as child processes, one per replica.
type external struct {
	x       *scenario.External
	base    scenario.TemplateData
	env     []string
	dir     string
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
	ce := &runerr.ControllerExitError{Replica: p.id, Status: status, Log: p.logf.Name(), After: time.Since(p.started).Round(time.Millisecond).String()}
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
	// watch records the process's CPU time and when its log said its caches synced.
	watch *procWatch
	// stopping is set before the harness stops the process: its end is then expected.
	stopping atomic.Bool
}

func NewExternal(x *scenario.External, e *env.Env, b backend.Backend, cr backend.Creds, sc *scenario.Scenario, leaseNS, dir string, log logr.Logger) (Controllers, error) {
	vpc, _ := b.DefaultVPCID()
	base := scenario.TemplateData{Kubeconfig: e.ControllerKubeconfig, AWSEndpoint: b.URL(), Region: cr.Region,
		AccessKeyID: cr.AccessKey, SecretAccessKey: cr.SecretKey, ClusterName: "restartsim", VpcID: vpc, Namespace: leaseNS}
	envv := append(os.Environ(), "AWS_ENDPOINT_URL="+b.URL(), "AWS_ACCESS_KEY_ID="+cr.AccessKey,
		"AWS_SECRET_ACCESS_KEY="+cr.SecretKey, "AWS_REGION="+cr.Region, "AWS_DEFAULT_REGION="+cr.Region,
		"AWS_EC2_METADATA_DISABLED=true", "KUBECONFIG="+e.ControllerKubeconfig)
	var synced *regexp.Regexp
	if x.CacheSyncedLog != "" {
		var err error
		if synced, err = regexp.Compile(x.CacheSyncedLog); err != nil {
			return nil, runerr.BadInput(fmt.Errorf("controller.external.cacheSyncedLog: %w", err))
		}
	}
	var lease *leaseWatch
	if l := x.Lease; l != nil {
		ns, err := render(l.Namespace, base)
		if err != nil {
			return nil, runerr.BadInput(fmt.Errorf("controller.external.lease.namespace: %w", err))
		}
		if lease, err = newLeaseWatch(e.Config, ns, l.Name); err != nil {
			return nil, err
		}
	}
	return &external{x: x, base: base, env: envv, dir: dir, log: log, reps: sc.Controller.Replicas,
		metrics: &http.Client{Timeout: 2 * time.Second}, synced: synced, lease: lease, exited: make(chan struct{})}, nil
}

func render(text string, data scenario.TemplateData) (string, error) {
	t, err := template.New("").Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

func (x *external) start() (*proc, error) {
	x.mu.Lock()
	id := x.next
	x.next++
	x.mu.Unlock()
	d := x.base
	d.Replica = id
	var err error
	for _, p := range []*int{&d.Port, &d.MetricsPort, &d.HealthPort} {
		if *p, err = freePort(); err != nil {
			return nil, err
		}
	}
	d.CertDir = filepath.Join(x.dir, fmt.Sprintf("certs-%d", id))
	if err := writeSelfSignedCert(d.CertDir); err != nil {
		return nil, err
	}
	argv := make([]string, len(x.x.Command))
	for i, a := range x.x.Command {
		if argv[i], err = render(a, d); err != nil {
			return nil, runerr.BadInput(fmt.Errorf("controller.external.command[%d]: %w", i, err))
		}
	}
	envv := append([]string(nil), x.env...)
	for _, k := range slices.Sorted(maps.Keys(x.x.Env)) {
		v, err := render(x.x.Env[k], d)
		if err != nil {
			return nil, runerr.BadInput(fmt.Errorf("controller.external.env[%s]: %w", k, err))
		}
		envv = append(envv, k+"="+v)
	}
	logf, err := os.Create(filepath.Join(x.dir, fmt.Sprintf("controller-%d.log", id)))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	watch := newProcWatch(logf, x.synced)
	cmd.Env, cmd.Stdout, cmd.Stderr = envv, watch, watch
	// Its own process group, so a stop reaches whatever the controller starts; and SIGKILL when this
	// process dies without stopping it (a killed test binary, SIGINT to a `go test`, a panic): the
	// child's group is not the terminal's, so nothing else would end it.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, runerr.BadInput(fmt.Errorf("starting the external controller %q: %w", argv[0], err))
	}
	p := &proc{id: id, cmd: cmd, data: d, done: make(chan struct{}), logf: logf, started: time.Now(), watch: watch}
	go watch.sample(cmd.Process.Pid, p.done)
	go func() {
		err := cmd.Wait() // returns once the output is copied into watch
		fmt.Fprintf(logf, "\n[restartsim] controller exited: %v\n", err)
		logf.Close()
		close(p.done)
		if !p.stopping.Load() {
			x.exitedOnItsOwn(p, err)
		}
	}()
	x.mu.Lock()
	x.procs = append(x.procs, p)
	x.all = append(x.all, p)
	cancelled := x.ctx != nil && x.ctx.Err() != nil
	x.mu.Unlock()
	if cancelled { // started while the run was being cancelled: killAll may have missed it
		x.stop(p, true)
		return nil, x.ctx.Err()
	}
	x.log.Info("external controller started", "replica", id, "pid", cmd.Process.Pid)
	return p, nil
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
	deadline := time.Now().Add(timeout)
	empty := 0
	for {
		p := x.oldest()
		synced := true
		if p != nil && x.synced != nil {
			_, at := p.watch.stats()
			synced = !at.IsZero()
		}
		depth, known := x.QueueDepth()["workqueue_depth"]
		switch {
		case synced && (!known || depth == 0):
			empty++
		default:
			empty = 0
		}
		if empty >= settlePolls {
			return nil
		}
		if time.Now().After(deadline) {
			return &runerr.ViolationError{Kind: runerr.ViolationInvariant, Details: []string{fmt.Sprintf(
				"warm-up: the external controller did not settle within %s (caches synced: %v, work queue depth %g)", timeout, synced, depth)}}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
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

// firstTakeover is the process that took over after the first restart: the first to sync its
// caches after the stop (a standby, or the replacement), else the replacement; nil before it.
func (x *external) firstTakeover() *proc {
	x.mu.Lock()
	defer x.mu.Unlock()
	if len(x.replacements) == 0 {
		return nil
	}
	took, at := x.replacements[0], time.Time{}
	for _, p := range x.all {
		if _, t := p.watch.stats(); !t.Before(x.firstStop) && (at.IsZero() || t.Before(at)) {
			took, at = p, t
		}
	}
	return took
}

// noteAtStop records what every running process cost until now, leader the one about to stop.
func (x *external) noteAtStop(leader *proc) {
	x.mu.Lock()
	defer x.mu.Unlock()
	var at []results.InstanceAtStop
	for _, q := range x.procs {
		cpu, rss := q.watch.now()
		role := results.RoleStandby
		if q == leader {
			role = results.RoleLeader
		}
		at = append(at, results.InstanceAtStop{Replica: q.id, Role: role, RSSBytes: rss, CPUSeconds: measure.Round3(cpu),
			UpSeconds: measure.Round3(time.Since(q.started).Seconds())})
	}
	x.atStops = append(x.atStops, at)
}

// instancesAtStops is, per restart so far, every process that ran just before its stop.
func (x *external) instancesAtStops() [][]results.InstanceAtStop {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([][]results.InstanceAtStop(nil), x.atStops...)
}

// Observed implements Controllers.
func (x *external) Observed() Observations {
	o := Observations{CachesSynced: x.cachesSynced(), AtStops: x.instancesAtStops()}
	if p := x.firstTakeover(); p != nil {
		o.TakeoverCPU, _ = p.watch.stats()
	}
	return o
}

// ElectsLeader implements Controllers: the harness knows of a Lease only when the scenario names it.
func (x *external) ElectsLeader() bool { return x.lease != nil }

// cachesSynced is when each process that logged so synced its caches (see inProcess.cachesSynced).
func (x *external) cachesSynced() []time.Time {
	x.mu.Lock()
	procs := append([]*proc(nil), x.all...)
	x.mu.Unlock()
	var out []time.Time
	for _, p := range procs {
		if _, t := p.watch.stats(); !t.IsZero() {
			out = append(out, t)
		}
	}
	return out
}

func (x *external) Stop() {
	x.mu.Lock()
	procs := append([]*proc(nil), x.procs...)
	x.mu.Unlock()
	for _, p := range procs {
		x.stop(p, false)
	}
}

// QueueDepth scrapes the leader's metrics endpoint.
func (x *external) QueueDepth() map[string]float64 {
	p := x.oldest()
	if p == nil {
		return nil
	}
	resp, err := x.metrics.Get(fmt.Sprintf("http://127.0.0.1:%d%s", p.data.MetricsPort, x.x.MetricsPath))
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil && len(mfs) == 0 {
		return nil
	}
	out := map[string]float64{}
	if v, ok := selectMetric(mfs, x.x.QueueDepth, scenario.DefaultQueueDepthMetric); ok {
		out["workqueue_depth"] = v
	}
	if v, ok := selectMetric(mfs, x.x.DeferredQueueDepth, scenario.DefaultDeferredDepthMetric); ok {
		out["deferred_queue_depth"] = v
	}
	return out
}

// selectMetric sums the gauge (or untyped) values of sel's series (def's, when sel is nil); false
// when none matches.
func selectMetric(mfs map[string]*dto.MetricFamily, sel *scenario.MetricSelector, def string) (float64, bool) {
	name, labels := def, map[string]string(nil)
	if sel != nil {
		name, labels = sel.Metric, sel.Labels
	}
	mf, ok := mfs[name]
	if !ok {
		return 0, false
	}
	sum, found := 0.0, false
series:
	for _, m := range mf.Metric {
		have := make(map[string]string, len(m.GetLabel()))
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue series
			}
		}
		found = true
		switch {
		case m.Gauge != nil:
			sum += m.GetGauge().GetValue()
		case m.Untyped != nil:
			sum += m.GetUntyped().GetValue()
		case m.Counter != nil:
			sum += m.GetCounter().GetValue()
		}
	}
	return sum, found
}

// writeSelfSignedCert writes tls.crt and tls.key for a webhook server that must start.
func writeSelfSignedCert(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "restartsim-webhook"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour), DNSNames: []string{"localhost"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "tls.crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tls.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
}

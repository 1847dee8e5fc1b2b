package env

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/restartsim/restartsim/internal/envtestassets"
)

// ControllerUser is the identity the controller under test uses on envtest.
const ControllerUser = "restartsim-controller"

// ErrEnvironment marks failures to provide the environment (missing assets, bad kubeconfig):
// bad environment rather than a failed run.
var ErrEnvironment = errors.New("environment")

// Options configures Start. Zero values take the documented defaults.
type Options struct {
	// Kubeconfig selects an existing cluster; empty starts envtest.
	Kubeconfig string
	// Context is the kubeconfig context. Default: the current one.
	Context string
	// AssetsDir holds kube-apiserver and etcd. Default: envtestassets.Dir("").
	AssetsDir string
	// CRDDir holds the TargetGroupBinding CRD. Default: the CRDs built into the binary.
	CRDDir string
	// CRDPaths are more CRD files or directories to install on envtest. A CRD of the same name as
	// one in CRDDir replaces it.
	CRDPaths []string
	// WorkDir receives the audit policy and log. Required. Nothing secret is written there (see
	// Env.PrivateDir).
	WorkDir string
	// EtcdDataDir is etcd's data directory on envtest; it is kept when the environment stops, so its
	// objects can be copied (CopyDataDir) and served again by a later Start. Default: a temporary
	// directory removed on Stop.
	EtcdDataDir string
	// QPS and Burst of the returned rest.Configs. Default 5000 / 10000 (envtest has no priority and fairness limits worth keeping).
	QPS   float32
	Burst int
	// GoMemLimit, when positive, starts envtest's kube-apiserver and etcd with GOMEMLIMIT set to
	// this many bytes: a soft limit that makes their garbage collectors run before the heap doubles
	// (their resident memory is otherwise 2-2.5 times their live heap). Ignored on a kubeconfig cluster.
	GoMemLimit int64
	// Scheduler starts kube-scheduler beside envtest's kube-apiserver (from AssetsDir; its log is
	// WorkDir/kube-scheduler.log), so pods without a nodeName are bound to nodes. Refused on a
	// kubeconfig cluster, which has its own.
	Scheduler bool
	// Logger. Default logr.Discard().
	Logger logr.Logger
}

// Env is a running API server.
type Env struct {
	// Kind is "envtest" or "kubeconfig".
	Kind string
	// Config is the simulation's own (admin) identity.
	Config *rest.Config
	// ControllerConfig is the controller's identity (the admin one on a kubeconfig cluster).
	ControllerConfig *rest.Config
	// ControllerKubeconfig is a kubeconfig file for ControllerConfig, for external controllers: on
	// envtest, in PrivateDir (it holds the identity's client key).
	ControllerKubeconfig string
	// AuditLog is the JSON-lines audit log of the controller's writes ("" when unavailable).
	AuditLog string
	// KubernetesVersion is the server's version.
	KubernetesVersion string

	testEnv   *envtest.Environment
	scheduler *scheduler
	reaper    *reaper // kills the control plane and removes its keys if this process dies first
}

// PrivateDir is a directory of this run's secrets (client and webhook keys), readable by this user
// only and outside the run's output: it is removed when the environment stops, and by a watcher
// process should this one die first. "" for an Env not made by Start.
func (e *Env) PrivateDir() string {
	if e.reaper == nil {
		return ""
	}
	return e.reaper.dir
}

// auditPolicy records every request of the controller user: its writes to the objects the
// measurements count, and all its requests for the restart's request count. A watch is logged when
// it starts (ResponseStarted, which only long-running requests have) and when it ends; the
// measurements count it once, at its start, so that a watch still open at the end counts too.
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: Metadata
  users: [` + ControllerUser + `]
- level: None
`

// Start brings up the environment.
func Start(ctx context.Context, o Options) (*Env, error) {
	if err := ctx.Err(); err != nil { // an interrupted run starts nothing new
		return nil, err
	}
	if o.QPS == 0 {
		o.QPS = 5000
	}
	if o.Burst == 0 {
		o.Burst = 10000
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	if o.WorkDir == "" {
		return nil, errors.New("env: WorkDir is required")
	}
	if err := os.MkdirAll(o.WorkDir, 0o755); err != nil {
		return nil, err
	}
	if o.Kubeconfig != "" {
		if o.Scheduler {
			return nil, fmt.Errorf("%w: kube-scheduler is started on envtest only; a kubeconfig cluster runs its own", ErrEnvironment)
		}
		return startKubeconfig(o)
	}
	return startEnvtest(ctx, o)
}

func startKubeconfig(o Options) (*Env, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: o.Kubeconfig}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context})
	cfg, err := cc.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("%w: kubeconfig %s: %v", ErrEnvironment, o.Kubeconfig, err)
	}
	rp, err := startReaper() // no control plane: the private directory only
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	e := &Env{Kind: "kubeconfig", Config: cfg, ControllerConfig: rest.CopyConfig(cfg), ControllerKubeconfig: o.Kubeconfig, reaper: rp}
	e.KubernetesVersion = serverVersion(cfg)
	return e, nil
}

func startEnvtest(ctx context.Context, o Options) (*Env, error) {
	assets, err := envtestassets.Dir(o.AssetsDir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEnvironment, err)
	}
	etcdDir := o.EtcdDataDir
	if etcdDir == "" {
		etcdDir = tempDir() // where envtest makes etcd's temporary directory
	}
	if err := checkFreeSpace(statfsFree, o.WorkDir, etcdDir); err != nil {
		return nil, err
	}
	policy := filepath.Join(o.WorkDir, "audit-policy.yaml")
	if err := os.WriteFile(policy, []byte(auditPolicy), 0o644); err != nil {
		return nil, err
	}
	auditLog := filepath.Join(o.WorkDir, "audit.log")
	crds, err := loadCRDs(o.CRDDir, o.CRDPaths)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrEnvironment, err)
	}
	te := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDs:                     crds,
		ControlPlaneStartTimeout: 60 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	if o.EtcdDataDir != "" {
		te.ControlPlane.Etcd = &envtest.Etcd{DataDir: o.EtcdDataDir}
	}
	configureAPIServer(te, policy, auditLog)
	rp, err := startReaper()
	if err != nil {
		return nil, err
	}
	var cfg *rest.Config
	start := func() (err error) { cfg, err = startWithGoMemLimit(te, o.GoMemLimit); return err }
	cleanUp := func() { rp.release(te.Stop() == nil) }
	if err := rp.watchStart(ctx, start, cleanUp); err != nil {
		if errors.Is(err, errStartAbandoned) {
			return nil, fmt.Errorf("starting envtest: %w", err) // cleaned up once envtest gives up
		}
		cleanUp()
		return nil, fmt.Errorf("%w: starting envtest from %s: %v", ErrEnvironment, assets, err)
	}
	e := &Env{Kind: "envtest", testEnv: te, AuditLog: auditLog, reaper: rp}
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	e.Config = cfg
	user, err := te.AddUser(envtest.User{Name: ControllerUser, Groups: []string{"system:masters"}}, &rest.Config{QPS: o.QPS, Burst: o.Burst})
	if err != nil {
		_ = e.Stop() // the start failure is the error to report
		return nil, fmt.Errorf("adding the controller user: %w", err)
	}
	e.ControllerConfig = user.Config()
	// Loopback: gzip of large list responses costs CPU on both ends (a restart's cache sync) and saves
	// nothing.
	cfg.DisableCompression, e.ControllerConfig.DisableCompression = true, true
	kc, err := user.KubeConfig()
	if err != nil {
		_ = e.Stop() // the start failure is the error to report
		return nil, err
	}
	e.ControllerKubeconfig = filepath.Join(rp.dir, "controller.kubeconfig")
	if err := os.WriteFile(e.ControllerKubeconfig, kc, 0o600); err != nil {
		_ = e.Stop() // the start failure is the error to report
		return nil, err
	}
	if o.Scheduler {
		if e.scheduler, err = startScheduler(ctx, te, assets, rp.dir, o.WorkDir); err != nil {
			_ = e.Stop() // the start failure is the error to report
			return nil, err
		}
	}
	e.KubernetesVersion = serverVersion(cfg)
	return e, nil
}

// configureAPIServer sets kube-apiserver's audit log and its request limits.
func configureAPIServer(te *envtest.Environment, policy, auditLog string) {
	args := te.ControlPlane.GetAPIServer().Configure()
	args.Set("audit-policy-file", policy)
	args.Set("audit-log-path", auditLog)
	args.Set("audit-log-format", "json")
	args.Set("audit-log-maxsize", "0")
	args.Set("service-cluster-ip-range", "10.96.0.0/12")
	args.Set("max-requests-inflight", "2000")
	args.Set("max-mutating-requests-inflight", "1000")
}

// envStarts keeps a start that sets GOMEMLIMIT apart from every other start: envtest starts its
// processes with this process's environment, so the variable is set for that start only.
var envStarts sync.RWMutex

func startWithGoMemLimit(te *envtest.Environment, limit int64) (*rest.Config, error) {
	if limit <= 0 {
		envStarts.RLock()
		defer envStarts.RUnlock()
		return te.Start()
	}
	envStarts.Lock()
	defer envStarts.Unlock()
	prev, had := os.LookupEnv("GOMEMLIMIT")
	if err := os.Setenv("GOMEMLIMIT", strconv.FormatInt(limit, 10)); err != nil {
		return nil, err
	}
	defer func() {
		if had {
			_ = os.Setenv("GOMEMLIMIT", prev)
		} else {
			_ = os.Unsetenv("GOMEMLIMIT")
		}
	}()
	return te.Start()
}

// Stop tears the environment down (a kubeconfig cluster is left running) and removes its private
// directory.
func (e *Env) Stop() error {
	if e == nil {
		return nil
	}
	if e.testEnv == nil {
		e.reaper.release(true)
		return nil
	}
	e.scheduler.stop()
	err := e.testEnv.Stop()
	e.reaper.release(err == nil)
	return err
}

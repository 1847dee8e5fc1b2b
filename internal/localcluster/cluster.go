package localcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options configures Up. Zero values take the documented defaults.
type Options struct {
	// Dir holds the cluster's state: certificates, etcd's data, logs, the admin kubeconfig
	// (Dir/kubeconfig) and the state file. Required.
	Dir string
	// AssetsDir holds etcd, kube-apiserver and kube-controller-manager. Required.
	AssetsDir string
	// StartTimeout bounds the wait for each component to become ready. Default 90 s.
	StartTimeout time.Duration
	// DieWithCaller kills the components when the process that called Up dies, however it dies
	// (Pdeathsig), for tests; a cluster started by `restartsim cluster up` outlives the command.
	DieWithCaller bool
	// Logger. Default logr.Discard().
	Logger logr.Logger
}

// Cluster describes a running local cluster.
type Cluster struct {
	// Dir is Options.Dir.
	Dir string `json:"dir"`
	// Kubeconfig is the admin kubeconfig (user restartsim-admin in system:masters).
	Kubeconfig string `json:"kubeconfig"`
	// Server is kube-apiserver's URL.
	Server string `json:"server"`
	// Components are the processes in start order.
	Components []Component `json:"components"`
}

// Component is one process of the control plane.
type Component struct {
	Name   string   `json:"name"`
	PID    int      `json:"pid"`
	Binary string   `json:"binary"`
	Args   []string `json:"args"`
	Log    string   `json:"log"`
}

// File names inside Options.Dir.
const (
	stateFile      = "cluster.json"
	kubeconfigFile = "kubeconfig"
	pkiDir         = "pki"
	etcdDir        = "etcd"
	logDir         = "logs"
)

// Service network of the cluster; the kubernetes Service takes its first address.
const (
	serviceCIDR    = "10.96.0.0/12"
	adminUser      = "restartsim-admin"
	controllerUser = "system:kube-controller-manager"
)

var firstServiceIP = net.IPv4(10, 96, 0, 1)

// ErrRunning is returned by Up when the directory already holds a running cluster.
var ErrRunning = errors.New("a local cluster is already running")

// Up starts etcd, kube-apiserver and kube-controller-manager and waits until the API server is ready
// and the controller manager leads. On failure, whatever was started is stopped again.
func Up(ctx context.Context, o Options) (*Cluster, error) {
	if o.Dir == "" || o.AssetsDir == "" {
		return nil, errors.New("localcluster: Dir and AssetsDir are required")
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = 90 * time.Second
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if c, err := Load(dir); err == nil && c.Running() {
		return c, fmt.Errorf("%w in %s (kubeconfig %s); stop it first", ErrRunning, dir, c.Kubeconfig)
	}
	for _, bin := range []string{"etcd", "kube-apiserver", "kube-controller-manager"} {
		if st, err := os.Stat(filepath.Join(o.AssetsDir, bin)); err != nil || st.IsDir() {
			return nil, fmt.Errorf("%s not found in %s; run `make cluster-assets` to build it", bin, o.AssetsDir)
		}
	}
	// A stopped cluster's leftovers would be served again (etcd's data) or mislead (old pids).
	if err := removeState(dir); err != nil {
		return nil, err
	}
	for _, d := range []string{pkiDir, etcdDir, logDir} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
	}
	c := &Cluster{Dir: dir, Kubeconfig: filepath.Join(dir, kubeconfigFile)}
	if err := c.start(ctx, o); err != nil {
		_ = c.stop(10*time.Second, o.Logger)
		_ = removeState(dir)
		return nil, err
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context, o Options) error {
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdClient, etcdPeer, apiPort := ports[0], ports[1], ports[2]
	p, err := newPKI(filepath.Join(c.Dir, pkiDir))
	if err != nil {
		return fmt.Errorf("creating certificates: %w", err)
	}
	if err := p.servingCert(firstServiceIP); err != nil {
		return fmt.Errorf("creating the serving certificate: %w", err)
	}
	c.Server = "https://127.0.0.1:" + strconv.Itoa(apiPort)
	if err := c.writeKubeconfig(p, c.Kubeconfig, "admin", adminUser, "system:masters"); err != nil {
		return err
	}
	kcmKubeconfig := filepath.Join(c.Dir, pkiDir, "kube-controller-manager.kubeconfig")
	if err := c.writeKubeconfig(p, kcmKubeconfig, "kube-controller-manager", controllerUser); err != nil {
		return err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(etcdClient)
	if err := c.startEtcd(ctx, o, etcdURL, "http://127.0.0.1:"+strconv.Itoa(etcdPeer)); err != nil {
		return err
	}
	admin, err := c.startAPIServer(ctx, o, p, etcdURL, apiPort)
	if err != nil {
		return err
	}
	if err := c.startControllerManager(ctx, o, p, admin, kcmKubeconfig); err != nil {
		return err
	}
	return c.save()
}

func (c *Cluster) startEtcd(ctx context.Context, o Options, etcdURL, peerURL string) error {
	o.Logger.Info("starting etcd", "url", etcdURL)
	if err := c.spawn(o, "etcd",
		"--name=local",
		"--data-dir="+filepath.Join(c.Dir, etcdDir),
		"--listen-client-urls="+etcdURL, "--advertise-client-urls="+etcdURL,
		"--listen-peer-urls="+peerURL, "--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=local="+peerURL,
		// A throw-away cluster on a shared machine: fsync latency would dominate every write.
		"--unsafe-no-fsync=true",
		"--quota-backend-bytes="+strconv.Itoa(8<<30),
	); err != nil {
		return err
	}
	return c.waitReady(ctx, o, func(ctx context.Context) error { return etcdHealthy(ctx, etcdURL) })
}

// startAPIServer starts kube-apiserver and returns an admin client once it is ready.
func (c *Cluster) startAPIServer(ctx context.Context, o Options, p *pki, etcdURL string, port int) (kubernetes.Interface, error) {
	o.Logger.Info("starting kube-apiserver", "server", c.Server)
	if err := c.spawn(o, "kube-apiserver",
		"--etcd-servers="+etcdURL,
		// No --advertise-address: the kubernetes Service's endpoint may not be a loopback address, so
		// it takes the host's, as envtest's does; nothing in this cluster dials it.
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--tls-cert-file="+p.path(servingCertFile), "--tls-private-key-file="+p.path(servingKeyFile),
		"--client-ca-file="+p.path(caCertFile),
		"--authorization-mode=Node,RBAC",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file="+p.path(saPubFile),
		"--service-account-signing-key-file="+p.path(saKeyFile),
		"--service-cluster-ip-range="+serviceCIDR,
		"--allow-privileged=true",
		// Room for the harness's writers; a production API server would be sized for its clients too.
		"--max-requests-inflight=2000", "--max-mutating-requests-inflight=1000",
	); err != nil {
		return nil, err
	}
	admin, err := clientset(c.Kubeconfig)
	if err != nil {
		return nil, err
	}
	return admin, c.waitReady(ctx, o, func(ctx context.Context) error { return apiserverReady(ctx, admin) })
}

func (c *Cluster) startControllerManager(ctx context.Context, o Options, p *pki, admin kubernetes.Interface, kubeconfig string) error {
	o.Logger.Info("starting kube-controller-manager")
	if err := c.spawn(o, "kube-controller-manager",
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=0",
		"--service-account-private-key-file="+p.path(saKeyFile),
		"--root-ca-file="+p.path(caCertFile),
		"--use-service-account-credentials=true",
		"--service-cluster-ip-range="+serviceCIDR,
		"--leader-elect=true",
	); err != nil {
		return err
	}
	return c.waitReady(ctx, o, func(ctx context.Context) error { return controllerManagerRunning(ctx, admin) })
}

// waitReady waits for the component started last to pass ready, and fails at once when it exits;
// the error names the component's log, where its own reason is.
func (c *Cluster) waitReady(ctx context.Context, o Options, ready func(context.Context) error) error {
	comp := c.Components[len(c.Components)-1]
	err := waitFor(ctx, o.StartTimeout, comp.Name, func(ctx context.Context) error {
		if !comp.alive() {
			return errExited
		}
		return ready(ctx)
	})
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s did not become ready: %w (log: %s%s)", comp.Name, err, comp.Log, lastLines(comp.Log, 5))
}

var errExited = errors.New("the process exited")

func (c *Cluster) writeKubeconfig(p *pki, path, name, user string, groups ...string) error {
	certFile, keyFile, err := p.clientCert(name, user, groups...)
	if err != nil {
		return fmt.Errorf("creating the %s client certificate: %w", name, err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["restartsim-local"] = &clientcmdapi.Cluster{Server: c.Server, CertificateAuthority: p.path(caCertFile)}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{ClientCertificate: p.path(certFile), ClientKey: p.path(keyFile)}
	cfg.Contexts["restartsim-local"] = &clientcmdapi.Context{Cluster: "restartsim-local", AuthInfo: user}
	cfg.CurrentContext = "restartsim-local"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}

func (c *Cluster) save() error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Dir, stateFile), data, 0o600)
}

// Load reads the state file of the cluster in dir.
func Load(dir string) (*Cluster, error) {
	data, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return nil, err
	}
	var c Cluster
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, stateFile), err)
	}
	return &c, nil
}

// Running reports whether every component is still alive.
func (c *Cluster) Running() bool {
	if len(c.Components) == 0 {
		return false
	}
	for _, comp := range c.Components {
		if !comp.alive() {
			return false
		}
	}
	return true
}

// Down stops the cluster in dir (a missing or stopped one is not an error) and removes its state,
// keys and etcd data; the logs stay for a post-mortem.
func Down(dir string, timeout time.Duration, log logr.Logger) error {
	if log.GetSink() == nil {
		log = logr.Discard()
	}
	c, err := Load(dir)
	if errors.Is(err, os.ErrNotExist) {
		return removeState(dir)
	}
	if err != nil {
		return err
	}
	if err := c.stop(timeout, log); err != nil {
		return err
	}
	return removeState(dir)
}

// removeState deletes everything Up wrote except the logs.
func removeState(dir string) error {
	var errs []error
	for _, name := range []string{stateFile, kubeconfigFile, pkiDir, etcdDir} {
		if err := os.RemoveAll(filepath.Join(dir, name)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

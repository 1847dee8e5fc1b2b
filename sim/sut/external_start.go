package sut

import (
	"bytes"
	"fmt"
	"maps"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"text/template"
	"time"

	"github.com/go-logr/logr"

	"github.com/restartsim/restartsim/internal/certs"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// NewExternal returns the scenario's external controller x (not yet started): sc.Controller.Replicas
// processes of its command, rendered per process, with AWS and kubeconfig settings in their
// environment.
func NewExternal(x *scenario.External, e *env.Env, b backend.Backend, cr backend.Creds, sc *scenario.Scenario, leaseNS, dir string, log logr.Logger) (Controllers, error) {
	vpc, _ := b.DefaultVPCID()
	apiServer := "" // an environment without a REST config (a test's) has no URL to give
	if e.ControllerConfig != nil {
		apiServer = e.ControllerConfig.Host
	}
	base := scenario.TemplateData{Kubeconfig: e.ControllerKubeconfig, APIServer: apiServer, AWSEndpoint: b.URL(), Region: cr.Region,
		AccessKeyID: cr.AccessKey, SecretAccessKey: cr.SecretKey, ClusterName: "restartsim", VpcID: vpc, Namespace: leaseNS}
	awsEnv, err := fakeAWSEnv(b.URL(), cr, dir)
	if err != nil {
		return nil, err
	}
	envv := append(withoutAWS(os.Environ()), append(awsEnv, "KUBECONFIG="+e.ControllerKubeconfig)...)
	command, err := parseCommand(x)
	if err != nil {
		return nil, err
	}
	var synced *regexp.Regexp
	if x.CacheSyncedLog != "" {
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
	return &external{x: x, base: base, command: command, env: envv, dir: dir, secrets: e.PrivateDir(), log: log, reps: sc.Controller.Replicas,
		metrics: &http.Client{Timeout: 2 * time.Second}, synced: synced, lease: lease, exited: make(chan struct{}), aws: b}, nil
}

// fakeAWSEnv is the whole AWS environment of an external controller: fakeaws's endpoint, key pair and region,
// no instance metadata, and config and credentials files that are empty (written in dir), so that no profile,
// CA bundle, role or endpoint of the user's ~/.aws reaches a controller that must talk to fakeaws only.
func fakeAWSEnv(endpoint string, cr backend.Creds, dir string) ([]string, error) {
	empty := filepath.Join(dir, "aws-empty-config")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		return nil, err
	}
	return []string{"AWS_ENDPOINT_URL=" + endpoint, "AWS_ACCESS_KEY_ID=" + cr.AccessKey, "AWS_SECRET_ACCESS_KEY=" + cr.SecretKey,
		"AWS_REGION=" + cr.Region, "AWS_DEFAULT_REGION=" + cr.Region, "AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + empty, "AWS_SHARED_CREDENTIALS_FILE=" + empty}, nil
}

// withoutAWS drops every AWS_ variable of the harness's environment (a CA bundle makes ACK's client fail every
// call; a profile, role, web-identity token or service endpoint would send a controller elsewhere).
func withoutAWS(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(strings.ToUpper(kv), "AWS_") {
			out = append(out, kv)
		}
	}
	return out
}

func render(text string, data scenario.TemplateData) (string, error) {
	t, err := parseTemplate(text)
	if err != nil {
		return "", err
	}
	return execute(t, data)
}

func parseTemplate(text string) (*template.Template, error) {
	return template.New("").Option("missingkey=error").Parse(text)
}

func execute(t *template.Template, data scenario.TemplateData) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return b.String(), nil
}

// commandTemplates are the external controller's command and environment, parsed once when it is
// built, so a replacement's start (timed) only fills them in.
type commandTemplates struct {
	argv []*template.Template
	env  []envTemplate // sorted by name
}

type envTemplate struct {
	name string
	t    *template.Template
}

func parseCommand(x *scenario.External) (commandTemplates, error) {
	var c commandTemplates
	for i, a := range x.Command {
		t, err := parseTemplate(a)
		if err != nil {
			return c, runerr.BadInput(fmt.Errorf("controller.external.command[%d]: %w", i, err))
		}
		c.argv = append(c.argv, t)
	}
	for _, k := range slices.Sorted(maps.Keys(x.Env)) {
		t, err := parseTemplate(x.Env[k])
		if err != nil {
			return c, runerr.BadInput(fmt.Errorf("controller.external.env[%s]: %w", k, err))
		}
		c.env = append(c.env, envTemplate{k, t})
	}
	return c, nil
}

// fill renders the command and the environment variables for one process.
func (c commandTemplates) fill(d scenario.TemplateData) (argv, env []string, err error) {
	argv = make([]string, len(c.argv))
	for i, t := range c.argv {
		if argv[i], err = execute(t, d); err != nil {
			return nil, nil, runerr.BadInput(fmt.Errorf("controller.external.command[%d]: %w", i, err))
		}
	}
	for _, e := range c.env {
		v, err := execute(e.t, d)
		if err != nil {
			return nil, nil, runerr.BadInput(fmt.Errorf("controller.external.env[%s]: %w", e.name, err))
		}
		env = append(env, e.name+"="+v)
	}
	return argv, env, nil
}

// Ports handed to a child process are drawn below Linux's default ephemeral range (32768–60999):
// between freePort closing its probe and the child binding the port, any process may bind port 0,
// and the kernel hands those out of the ephemeral range only. A port the kernel picked for the probe
// could be given to someone else (an API server, a client's outgoing connection) in that window.
const (
	childPortMin = 20000
	childPortMax = 32000
)

// freePorts returns n distinct loopback ports that were free a moment ago, outside the ephemeral
// range when ones are free there. Each probe stays bound until all n are drawn: drawn one after
// another and released at once, two could be the same port (a replica's metrics and health probe
// servers on one port, and the replica exiting on "address already in use").
func freePorts(n int) ([]int, error) {
	var ports []int
	var probes []net.Listener
	defer func() {
		for _, ln := range probes {
			_ = ln.Close()
		}
	}()
	for len(ports) < n {
		ln, err := probePort()
		if err != nil {
			return nil, err
		}
		probes = append(probes, ln)
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// handedOut are the ports this process handed to a child lately: runs side by side in one
// harness never draw the same port, even in the window between one's probe and its child's bind.
var handedOut = struct {
	sync.Mutex
	ports map[int]bool
}{ports: map[int]bool{}}

// probePort binds a free loopback port, below the ephemeral range when one is free there, that
// this process has not handed out lately.
func probePort() (net.Listener, error) {
	handedOut.Lock()
	defer handedOut.Unlock()
	if len(handedOut.ports) > (childPortMax-childPortMin)/2 {
		clear(handedOut.ports) // long since bound by their children or released
	}
	for range 50 {
		port := childPortMin + mrand.IntN(childPortMax-childPortMin)
		if handedOut.ports[port] {
			continue
		}
		if ln, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			handedOut.ports[port] = true
			return ln, nil
		}
	}
	return net.Listen("tcp", "127.0.0.1:0")
}

func (x *external) start() (*proc, error) {
	x.mu.Lock()
	id := x.next
	x.next++
	x.mu.Unlock()
	d := x.base
	d.Replica = id
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	d.Port, d.MetricsPort, d.HealthPort = ports[0], ports[1], ports[2]
	secrets := x.secrets
	if secrets == "" { // no environment started by env.Start (tests)
		secrets = x.dir
	}
	d.CertDir = filepath.Join(secrets, fmt.Sprintf("certs-%d", id))
	if err := certs.WriteSelfSigned(d.CertDir); err != nil {
		return nil, err
	}
	argv, own, err := x.command.fill(d)
	if err != nil {
		return nil, err
	}
	envv := append(slices.Clone(x.env), own...)
	logf, err := os.Create(filepath.Join(x.dir, fmt.Sprintf("controller-%d.log", id)))
	if err != nil {
		return nil, err
	}
	var awsFrom time.Time
	if x.aws != nil {
		awsFrom, _ = x.aws.Now() // zero on error: every refused call counts
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
	p := &proc{id: id, cmd: cmd, data: d, done: make(chan struct{}), logf: logf, started: time.Now(), awsFrom: awsFrom, watch: watch}
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

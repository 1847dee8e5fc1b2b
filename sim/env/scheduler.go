package env

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/internal/poll"
)

// SchedulerUser is kube-scheduler's identity on envtest.
const SchedulerUser = "system:kube-scheduler"

// scheduler is a kube-scheduler process beside envtest's kube-apiserver.
type scheduler struct {
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
	log  string
}

// startScheduler starts kube-scheduler from assets with its own kubeconfig (in the private
// directory), serving on a free loopback port, leader election off, its output in
// workDir/kube-scheduler.log, and waits until it answers /healthz.
func startScheduler(ctx context.Context, te *envtest.Environment, assets, privateDir, workDir string) (*scheduler, error) {
	bin := filepath.Join(assets, envtestassets.KubeScheduler)
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%w: cluster.scheduler needs kube-scheduler v%s in %s, which has none: run `restartsim assets --with %s`",
			ErrEnvironment, envtestassets.Version, assets, envtestassets.KubeScheduler)
	}
	user, err := te.AddUser(envtest.User{Name: SchedulerUser, Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return nil, fmt.Errorf("adding the scheduler user: %w", err)
	}
	kc, err := user.KubeConfig()
	if err != nil {
		return nil, err
	}
	kubeconfig := filepath.Join(privateDir, "scheduler.kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		return nil, err
	}
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s := &scheduler{done: make(chan struct{}), log: filepath.Join(workDir, "kube-scheduler.log")}
	logFile, err := os.Create(s.log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	s.cmd = exec.Command(bin,
		"--kubeconfig="+kubeconfig, "--authentication-kubeconfig="+kubeconfig, "--authorization-kubeconfig="+kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port="+strconv.Itoa(port),
		"--cert-dir="+filepath.Join(privateDir, "scheduler-serving"),
		"--leader-elect=false")
	s.cmd.Stdout, s.cmd.Stderr = logFile, logFile
	// Its own process group, killed with this process however it dies.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: starting kube-scheduler: %v", ErrEnvironment, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	if err := s.waitHealthy(ctx, port); err != nil {
		s.stop()
		return nil, fmt.Errorf("%w: kube-scheduler did not become healthy: %v (log: %s)", ErrEnvironment, err, s.log)
	}
	return s, nil
}

// waitHealthy polls the scheduler's /healthz (an always-allowed path) until it answers ok.
func (s *scheduler) waitHealthy(ctx context.Context, port int) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		// Its serving certificate is self-signed at start; only loopback is dialled.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback health check of a self-signed server
	}}
	url := "https://127.0.0.1:" + strconv.Itoa(port) + "/healthz"
	return poll.Until(ctx, 60*time.Second, poll.Every(100*time.Millisecond), func() (bool, error) {
		select {
		case <-s.done:
			return false, errors.New("the process exited")
		default:
		}
		resp, err := hc.Get(url)
		if err != nil {
			return false, nil //nolint:nilerr // not serving yet: poll again
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, nil
	})
}

// stop sends SIGTERM to the scheduler's group and SIGKILL after 10 s.
func (s *scheduler) stop() {
	if s == nil {
		return
	}
	pid := s.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-s.done
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

package env

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// The controller's kubeconfig, which holds its client key, is written in the private directory,
// never in the work directory (the run's output), and is gone once the environment stops.
func TestControllerKubeconfigStaysPrivate(t *testing.T) {
	work := t.TempDir()
	e, err := Start(context.Background(), Options{WorkDir: work})
	if err != nil {
		t.Fatal(err)
	}
	kc := e.ControllerKubeconfig
	private := e.PrivateDir()
	if data, err := os.ReadFile(kc); err != nil || !strings.Contains(string(data), "client-key-data") {
		t.Fatalf("controller kubeconfig %s: %v (want a client key in it)", kc, err)
	}
	if !strings.HasPrefix(kc, private+string(filepath.Separator)) {
		t.Errorf("controller kubeconfig %s is outside the private directory %s", kc, private)
	}
	if st, err := os.Stat(private); err != nil || st.Mode().Perm()&0o077 != 0 {
		t.Errorf("private directory %s: %v, mode %v; want it readable by this user only", private, err, st.Mode().Perm())
	}
	if err := e.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(private); !os.IsNotExist(err) {
		t.Errorf("private directory left after Stop: %v", err)
	}
	_ = filepath.Walk(work, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			if data, _ := os.ReadFile(p); strings.Contains(string(data), "PRIVATE KEY") || strings.Contains(string(data), "client-key-data") {
				t.Errorf("%s in the work directory holds a key", p)
			}
		}
		return nil
	})
}

// A start whose context ends while the control plane comes up returns the context's error, and
// its kube-apiserver and etcd are killed and its private directory removed (envtest's own start
// would wait for its timeouts first).
func TestStartCancelledStopsTheControlPlane(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc")
	}
	if n := len(controlPlaneChildren()); n > 0 {
		t.Skipf("%d control plane processes of an earlier test still run", n)
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the private directory is made here
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type started struct {
		e   *Env
		err error
	}
	result := make(chan started, 1)
	go func() {
		e, err := Start(ctx, Options{WorkDir: t.TempDir()})
		result <- started{e, err}
	}()
	// Cancel once the control plane has begun: a kube-apiserver or etcd child exists.
	var dirs []string
	poll := func(cond func() bool) error {
		return wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 2*time.Minute, true,
			func(context.Context) (bool, error) { return cond(), nil })
	}
	if err := poll(func() bool {
		dirs, _ = filepath.Glob(filepath.Join(tmp, "restartsim-envtest-*"))
		return len(controlPlaneChildren()) > 0
	}); err != nil {
		t.Fatal("no control plane process appeared")
	}
	cancel()
	r := <-result
	if r.err == nil {
		_ = r.e.Stop()
		t.Fatal("Start returned a running environment after its context ended")
	}
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("Start = %v, want context.Canceled", r.err)
	}
	if err := poll(func() bool { return len(controlPlaneChildren()) == 0 }); err != nil {
		t.Fatalf("control plane processes still run: %v", controlPlaneChildren())
	}
	if err := poll(func() bool {
		for _, d := range dirs {
			if _, err := os.Stat(d); err == nil {
				return false
			}
		}
		return true
	}); err != nil {
		t.Errorf("private directories left: %v", dirs)
	}
}

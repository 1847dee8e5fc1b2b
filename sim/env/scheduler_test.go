package env

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// Without the binary, the error says which command builds it, before anything starts.
func TestSchedulerMissingBinarySaysHowToBuildIt(t *testing.T) {
	_, err := startScheduler(context.Background(), nil, t.TempDir(), t.TempDir(), t.TempDir())
	if !errors.Is(err, ErrEnvironment) || !strings.Contains(err.Error(), "restartsim assets --with kube-scheduler") {
		t.Fatalf("error %v, want an environment error naming restartsim assets --with kube-scheduler", err)
	}
}

func TestSchedulerRefusedOnKubeconfig(t *testing.T) {
	_, err := Start(context.Background(), Options{WorkDir: t.TempDir(), Kubeconfig: "/nonexistent", Scheduler: true})
	if !errors.Is(err, ErrEnvironment) || !strings.Contains(err.Error(), "envtest only") {
		t.Fatalf("error %v, want one saying kube-scheduler is started on envtest only", err)
	}
}

package localcluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

func clientset(kubeconfig string) (*kubernetes.Clientset, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.Timeout = 5 * time.Second
	return kubernetes.NewForConfig(cfg)
}

// waitFor polls check every 200 ms until it succeeds, the timeout passes or ctx ends; the error
// is check's last.
func waitFor(ctx context.Context, timeout time.Duration, what string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var last error
	for {
		if last = check(ctx); last == nil {
			return nil
		}
		if errors.Is(last, errExited) {
			return last
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s: %w", what, last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

func etcdHealthy(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/health", nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	var h struct {
		Health string `json:"health"`
	}
	body, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(body, &h); err != nil || h.Health != "true" {
		return fmt.Errorf("etcd /health: %s", body)
	}
	return nil
}

func apiserverReady(ctx context.Context, c kubernetes.Interface) error {
	_, err := c.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
	return err
}

// controllerManagerRunning: the controller manager holds its Lease, and its service-account
// controller has created the default namespace's ServiceAccount (so its controllers run, not just
// its leader election).
func controllerManagerRunning(ctx context.Context, c kubernetes.Interface) error {
	lease, err := c.CoordinationV1().Leases("kube-system").Get(ctx, "kube-controller-manager", metav1.GetOptions{})
	if err != nil {
		return err
	}
	if lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity == "" {
		return errors.New("the kube-controller-manager Lease has no holder")
	}
	_, err = c.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
	return err
}

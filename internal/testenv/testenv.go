// Package testenv starts the envtest API server that the integration suites share: assets from
// envtestassets, the TargetGroupBinding CRD installed, a client that knows the TGB types, and no
// client-side rate limit (the suites measure the API server, not client-go's default 5 QPS).
package testenv

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/restartsim/restartsim/controller/api/v1beta1"
	"github.com/restartsim/restartsim/internal/envtestassets"
)

// Env is a running envtest API server.
type Env struct {
	Config *rest.Config
	Client client.Client
	Scheme *runtime.Scheme
	env    *envtest.Environment
}

// Start starts kube-apiserver and etcd with the CRDs in crdDir (relative to the caller's package
// directory) and a /12 service range, so thousands of NodePort Services fit.
func Start(crdDir string) (*Env, error) {
	assets, err := envtestassets.Dir("")
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(crdDir); err != nil {
		return nil, fmt.Errorf("CRD directory: %w", err)
	}
	te := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDDirectoryPaths:     []string{filepath.Clean(crdDir)},
		ErrorIfCRDPathMissing: true,
	}
	te.ControlPlane.GetAPIServer().Configure().Set("service-cluster-ip-range", "10.96.0.0/12")
	cfg, err := te.Start()
	if err != nil {
		return nil, fmt.Errorf("starting envtest: %w", err)
	}
	cfg.QPS = -1
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		_ = te.Stop()
		return nil, err
	}
	if err := v1beta1.AddToScheme(scheme); err != nil {
		_ = te.Stop()
		return nil, err
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		_ = te.Stop()
		return nil, err
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, env: te}, nil
}

// Stop stops the API server and etcd.
func (e *Env) Stop() error { return e.env.Stop() }

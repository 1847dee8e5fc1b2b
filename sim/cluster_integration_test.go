package sim

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/go-logr/logr"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/internal/envtestassets"
	"github.com/restartsim/restartsim/internal/localcluster"
	"github.com/restartsim/restartsim/internal/testenv"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
)

// TestRealControlPlane runs scenarios on a control plane of separate processes (etcd,
// kube-apiserver, kube-controller-manager), as on a real cluster: a run on a cluster without the
// CRD fails before it creates anything; with InstallCRDs two strategies and then a rerun pass, with
// the EndpointSlices written by the real EndpointSlice controller; afterwards no namespace, Node
// or node Lease of the harness is left and a bystander namespace is untouched. An identity
// without permissions is refused by name. Stopping the cluster leaves no process.
func TestRealControlPlane(t *testing.T) {
	testenv.RequireAssets(t)
	assets, err := envtestassets.Dir("")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(assets, "kube-controller-manager")); err != nil {
		t.Fatalf("kube-controller-manager is not built: run `make cluster-assets` (%v)", err)
	}
	ctx := context.Background()
	dir := t.TempDir()
	lc, err := localcluster.Up(ctx, localcluster.Options{Dir: dir, AssetsDir: assets, DieWithCaller: true})
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = localcluster.Down(dir, 30*time.Second, logr.Discard())
		}
	})
	cfg, err := clientcmd.BuildConfigFromFlags("", lc.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	bystander := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bystander"}}
	if err := c.Create(ctx, bystander); err != nil {
		t.Fatal(err)
	}
	namespacesBefore := namespaceNames(t, c)

	yaml := header + `controller:
  strategies:
    - {name: no-checkpoint, checkpoint: none}
    - {name: checkpoint, checkpoint: annotation}
timeline:
  - {action: restart, mode: crash, await: none, downtime: 1s}
  - {after: 1s, action: churn, kind: mixed, services: 3}
  - {waitFor: steadyState, timeout: 2m}
thresholds:
  - {metric: invariant_violations, max: 0}
`
	sc, err := scenario.Parse("cluster.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	run := func(o Options) (*Report, error) {
		o.Scenario, o.Kubeconfig, o.OutDir = sc, lc.Kubeconfig, t.TempDir()
		o.Stdout, o.Progress, o.NoReport = io.Discard, io.Discard, true
		return Run(ctx, o)
	}

	t.Run("missing CRD is bad environment, nothing created", func(t *testing.T) {
		_, err := run(Options{})
		if !runerr.IsBadInput(err) || !strings.Contains(err.Error(), "targetgroupbindings.elbv2.k8s.aws") || !strings.Contains(err.Error(), "--install-crds") {
			t.Fatalf("Run without the CRD: %v, want bad environment naming the CRD and --install-crds", err)
		}
		if got := namespaceNames(t, c); strings.Join(got, ",") != strings.Join(namespacesBefore, ",") {
			t.Errorf("namespaces after the refused run %v, want %v", got, namespacesBefore)
		}
	})

	t.Run("an identity without permissions is refused by name", func(t *testing.T) {
		kc := impersonatingKubeconfig(t, lc.Kubeconfig, "nobody")
		_, err := Run(ctx, Options{Scenario: sc, Kubeconfig: kc, OutDir: t.TempDir(), Stdout: io.Discard, Progress: io.Discard, NoReport: true})
		if !runerr.IsBadInput(err) || !strings.Contains(err.Error(), "lacks permissions") || !strings.Contains(err.Error(), "create namespaces") {
			t.Fatalf("Run as an identity without permissions: %v, want bad environment naming what is missing", err)
		}
	})

	for i := range 2 {
		rep, err := run(Options{InstallCRDs: true})
		if err != nil {
			t.Fatalf("run %d: %v", i+1, err)
		}
		if rep.Results.Environment.EndpointSlices != "cluster" {
			t.Errorf("run %d: endpointSlices %q, want cluster (kube-controller-manager leads)", i+1, rep.Results.Environment.EndpointSlices)
		}
		for _, st := range rep.Results.Strategies {
			if !st.Invariants.Passed || st.Summary.TTFMRSeconds == nil {
				t.Errorf("run %d, %s: invariants %+v, TTFMR %v", i+1, st.Name, st.Invariants, st.Summary.TTFMRSeconds)
			}
		}
		if len(rep.Results.Strategies) != 2 {
			t.Errorf("run %d: %d strategies, want 2", i+1, len(rep.Results.Strategies))
		}
	}
	crdScheme := runtime.NewScheme()
	_ = apiextensionsv1.AddToScheme(crdScheme)
	crdClient, err := client.New(cfg, client.Options{Scheme: crdScheme})
	if err != nil {
		t.Fatal(err)
	}
	var crd apiextensionsv1.CustomResourceDefinition
	if err := crdClient.Get(ctx, client.ObjectKey{Name: "targetgroupbindings.elbv2.k8s.aws"}, &crd); err != nil {
		t.Errorf("the installed CRD: %v", err)
	}
	if got := namespaceNames(t, c); strings.Join(got, ",") != strings.Join(namespacesBefore, ",") {
		t.Errorf("namespaces after the runs %v, want %v (the run's are deleted, the bystander stays)", got, namespacesBefore)
	}
	var nodes corev1.NodeList
	if err := c.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	if len(nodes.Items) != 0 {
		t.Errorf("%d Nodes left, e.g. %s", len(nodes.Items), nodes.Items[0].Name)
	}
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases, client.InNamespace(corev1.NamespaceNodeLease)); err != nil {
		t.Fatal(err)
	}
	if len(leases.Items) != 0 {
		t.Errorf("%d node Leases left, e.g. %s", len(leases.Items), leases.Items[0].Name)
	}

	if err := localcluster.Down(dir, 30*time.Second, logr.Discard()); err != nil {
		t.Fatal(err)
	}
	stopped = true
	for _, comp := range lc.Components {
		if err := syscall.Kill(comp.PID, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("%s (pid %d) still runs after Down (kill 0: %v)", comp.Name, comp.PID, err)
		}
	}
	if _, err := os.Stat(lc.Kubeconfig); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the admin kubeconfig survived Down: %v", err)
	}
}

func namespaceNames(t *testing.T, c client.Client) []string {
	t.Helper()
	var nss corev1.NamespaceList
	if err := c.List(context.Background(), &nss); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ns := range nss.Items {
		names = append(names, ns.Name)
	}
	return names
}

// impersonatingKubeconfig writes a copy of the kubeconfig whose user acts as user (the admin may
// impersonate), an identity RBAC grants nothing.
func impersonatingKubeconfig(t *testing.T, path, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, ai := range cfg.AuthInfos {
		ai.Impersonate = user
	}
	out := filepath.Join(t.TempDir(), "nobody.kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, out); err != nil {
		t.Fatal(err)
	}
	return out
}

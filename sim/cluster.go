package sim

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
)

// clusterRun is what a run on a kubeconfig cluster decides once, before its first strategy, and
// then never changes; each strategy run gets a copy with its own number (forStrategy).
type clusterRun struct {
	// id tells this run's objects from every other run's on the same cluster, including an
	// earlier run of the same scenario whose namespaces are still terminating.
	id string
	// seq numbers the strategy run of this copy (each has its own namespaces and run label).
	seq int
	// clusterSlices: the cluster's EndpointSlice controller writes the slices.
	clusterSlices bool
	// controllerManager: a kube-controller-manager leads, so deleted namespaces are finalized and
	// cleanup can wait for them (on a bare API server they stay Terminating).
	controllerManager bool
}

// forStrategy is the copy of the cluster run for strategy run number seq (nil on envtest).
func (c *clusterRun) forStrategy(seq int) *clusterRun {
	if c == nil {
		return nil
	}
	cp := *c
	cp.seq = seq
	return &cp
}

// fleetSpec is the scenario's fleet as this strategy run plans it: its namespaces named after the
// strategy run, its EndpointSlices written by whoever the run decided.
func (c *clusterRun) fleetSpec(sc *scenario.Scenario) workload.Spec {
	spec := sc.Fleet.WorkloadSpec()
	spec.NamespacePrefix = "rs-" + c.name()
	spec.ClusterEndpointSlices = c.clusterSlices
	return spec
}

// labels mark the strategy run's objects.
func (c *clusterRun) labels(sc *scenario.Scenario) map[string]string {
	return map[string]string{RunLabel: trunc(sc.Name, 40) + "-" + c.name()}
}

// name of the strategy run: unique on the cluster, short enough for namespace and label
// values.
func (c *clusterRun) name() string { return fmt.Sprintf("%s-%d", c.id, c.seq) }

// prepareCluster checks a kubeconfig cluster before anything is created on it (reachable, CRDs
// served or installed, permissions) and decides who writes the EndpointSlices. On envtest it only
// refuses a scenario that wants the cluster's EndpointSlice controller.
func prepareCluster(ctx context.Context, o runConfig, sc *scenario.Scenario) (*clusterRun, error) {
	if !onKubeconfig(o, sc) {
		if sc.Cluster.EndpointSlices == scenario.EndpointSlicesCluster {
			return nil, runerr.BadInput(fmt.Errorf("cluster.endpointSlices: %q needs a cluster with kube-controller-manager (--kubeconfig); envtest has none", scenario.EndpointSlicesCluster))
		}
		return nil, nil
	}
	log := o.Logger
	// A kubeconfig environment writes nothing into its work directory.
	workDir, err := os.MkdirTemp("", "restartsim-preflight-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(workDir)
	e, err := startEnv(ctx, o, sc, workDir, "", 0, log)
	if err != nil {
		return nil, err
	}
	defer stopEnv(e, log)
	log.Info("checking the cluster", "server", e.Config.Host)
	cr := &clusterRun{id: randomID(), controllerManager: controllerManagerLeads(ctx, e)}
	switch sc.Cluster.EndpointSlices {
	case scenario.EndpointSlicesCluster:
		cr.clusterSlices = true
	case scenario.EndpointSlicesSimulated:
	default:
		cr.clusterSlices = cr.controllerManager
	}
	pf := env.Preflight{CRDPaths: sc.Cluster.CRDs, Install: o.InstallCRDs, Needs: clusterNeeds(cr.clusterSlices, sc.Fleet.Ingresses != nil)}
	if err := pf.Check(ctx, e); err != nil {
		return nil, err
	}
	who := "the harness (simulated endpoint controller)"
	if cr.clusterSlices {
		who = "the cluster's EndpointSlice controller"
	}
	log.Info("cluster ready for the run", "kubernetes", e.KubernetesVersion, "run", cr.id, "endpointSlicesBy", who)
	return cr, nil
}

// controllerManagerLeads: a kube-controller-manager holds its Lease and renewed it recently.
func controllerManagerLeads(ctx context.Context, e *env.Env) bool {
	c, err := client.New(e.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		return false
	}
	var lease coordinationv1.Lease
	if err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kube-controller-manager"}, &lease); err != nil {
		return false
	}
	if lease.Spec.HolderIdentity == nil || lease.Spec.RenewTime == nil {
		return false
	}
	valid := 15 * time.Second
	if lease.Spec.LeaseDurationSeconds != nil {
		valid = time.Duration(*lease.Spec.LeaseDurationSeconds) * time.Second
	}
	return time.Since(lease.Spec.RenewTime.Time) < 2*valid
}

// clusterNeeds are the permissions of the harness's identity, which on a kubeconfig cluster is the
// in-process controller's too: the fleet's writes, the simulated kubelet's, the watches and the
// controller's reads and writes; with loadBalancers, those of the Ingress side and of the load
// balancer reconcilers too.
func clusterNeeds(clusterSlices, loadBalancers bool) []env.Access {
	var needs []env.Access
	add := func(group, resource, namespace string, verbs ...string) {
		for _, v := range verbs {
			needs = append(needs, env.Access{Verb: v, Group: group, Resource: resource, Namespace: namespace})
		}
	}
	rw := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	add("", "namespaces", "", "get", "list", "create", "delete")
	add("", "nodes", "", rw...)
	add("", "nodes/status", "", "update", "patch")
	add("", "pods", "", rw...)
	add("", "pods/status", "", "update", "patch")
	add("", "services", "", rw...)
	add("", "events", "", "create", "patch")
	if clusterSlices {
		add("discovery.k8s.io", "endpointslices", "", "get", "list", "watch")
	} else {
		add("discovery.k8s.io", "endpointslices", "", rw...)
	}
	add("coordination.k8s.io", "leases", "", rw...)
	add("coordination.k8s.io", "leases", "kube-node-lease", "create", "update", "delete")
	add("elbv2.k8s.aws", "targetgroupbindings", "", rw...)
	add("elbv2.k8s.aws", "targetgroupbindings/status", "", "update", "patch")
	if loadBalancers {
		add("networking.k8s.io", "ingresses", "", rw...)
		add("networking.k8s.io", "ingresses/status", "", "update", "patch")
		add("networking.k8s.io", "ingressclasses", "", "get", "list", "watch", "create", "delete")
		add("", "secrets", "", rw...)
		add("", "services/status", "", "update", "patch")
		add("elbv2.k8s.aws", "ingressclassparams", "", "get", "list", "watch")
	}
	return needs
}

func randomID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// cleanupCluster deletes a strategy run's objects from a kubeconfig cluster and, when wait is set
// (a controller manager finalizes namespaces), waits until its namespaces, Nodes and node Leases
// are gone, so the next strategy starts on a quiet cluster.
func cleanupCluster(ctx context.Context, c client.Client, labels map[string]string, wait bool, log logr.Logger) {
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 3*time.Minute)
	defer cancel()
	start := time.Now()
	if err := workload.DeleteLabelled(cctx, c, labels); err != nil {
		log.Info("cleaning up the fleet failed", "labels", labels, "error", err.Error())
		return
	}
	if !wait {
		log.Info("fleet deleted; its namespaces stay Terminating (no controller manager finalizes them)", "labels", labels)
		return
	}
	if err := workload.WaitDeleted(cctx, c, labels); err != nil {
		log.Info("the fleet's namespaces are not gone yet; they finish deleting on their own", "labels", labels, "error", err.Error())
		return
	}
	log.Info("fleet deleted from the cluster", "labels", labels, "took", time.Since(start).Round(100*time.Millisecond))
}

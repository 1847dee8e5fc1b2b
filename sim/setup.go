package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/zapr"
	"github.com/restartsim/restartsim/fakeaws"
	"github.com/restartsim/restartsim/internal/tgattach"
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/env"
	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/runerr"
	"github.com/restartsim/restartsim/sim/scenario"
	"github.com/restartsim/restartsim/sim/workload"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// RunLabel marks every object of a run.
const RunLabel = "restartsim.io/run"

// startSimulator runs the simulated kubelet and endpoint controller for the run's objects until stop.
func startSimulator(ctx context.Context, e *env.Env, labels map[string]string, clusterSlices bool, log logr.Logger) (*kubesim.Simulator, func(), error) {
	simulator, err := kubesim.NewSimulator(e.Config, kubesim.SimulatorOptions{Labels: labels, ClusterEndpointSlices: clusterSlices, Logger: log.WithName("kubelet")})
	if err != nil {
		return nil, nil, err
	}
	simCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = simulator.Start(simCtx) }()
	return simulator, func() { cancel(); <-done }, nil
}

func waitSynced(ctx context.Context, s *kubesim.Simulator) error {
	select {
	case <-s.Synced():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// startEnv starts the scenario's cluster: a kubeconfig one, or envtest (on etcdDir when set, with
// GOMEMLIMIT when goMemLimit > 0).
func startEnv(ctx context.Context, o runConfig, sc *scenario.Scenario, workDir, etcdDir string, goMemLimit int64, log logr.Logger) (*env.Env, error) {
	kc, kctx := "", o.KubeContext
	if onKubeconfig(o, sc) {
		var err error
		if kc, err = kubeconfigPath(o, sc); err != nil {
			return nil, runerr.BadInput(err)
		}
		if o.Kubeconfig == "" {
			kctx = sc.Cluster.Kubeconfig.Context
		}
	}
	assets := o.AssetsDir
	if assets == "" && sc.Cluster.Envtest != nil {
		assets = sc.Cluster.Envtest.AssetsDir
	}
	if kc == "" {
		log.Info("starting the API server (envtest)")
	}
	starting := startPhase(o.Progress, "starting the API server")
	defer starting.End()
	return env.Start(ctx, env.Options{Kubeconfig: kc, Context: kctx, AssetsDir: assets, CRDPaths: sc.Cluster.CRDs, WorkDir: workDir, EtcdDataDir: etcdDir, GoMemLimit: goMemLimit,
		Scheduler: sc.Cluster.Scheduler, Logger: log})
}

func stopEnv(e *env.Env, log logr.Logger) {
	if e.Kind != "envtest" {
		_ = e.Stop() // removes its private directory; the cluster keeps running
		return
	}
	t := time.Now()
	_ = e.Stop()
	log.Info("API server stopped", "took", time.Since(t).Round(time.Millisecond))
}

// runLabels mark every object of a seed's fleet (the same for all strategies, which may share it).
func runLabels(sc *scenario.Scenario, seed int64) map[string]string {
	return map[string]string{RunLabel: fmt.Sprintf("%s-%d", trunc(sc.Name, 50), seed)}
}

// planFleet plans the fleet spec describes for seed (deterministic: the same plan every call).
func planFleet(spec workload.Spec, seed int64) (*workload.FleetPlan, error) {
	if err := spec.Validate(); err != nil {
		return nil, runerr.BadInput(fmt.Errorf("fleet: %w", err))
	}
	return workload.Plan(spec, rand.New(rand.NewPCG(uint64(seed), 1))), nil
}

func fleetOptions(o runConfig, sc *scenario.Scenario, c client.Client, cloud backend.Backend, labels map[string]string, log logr.Logger) workload.Options {
	cr := runCreds(o, sc)
	return workload.Options{
		Client: c, AWS: backend.NewProvisioner(cloud, cr), Concurrency: sc.Fleet.Concurrency, Progress: o.Progress,
		Labels: labels, ContainerRestartDelay: sc.Clock().Wall(sc.Fleet.ContainerRestartDelay.Duration), Logger: log.WithName("fleet"),
	}
}

// startAWS starts the scenario's AWS (with a copy of from's resources when set; otherwise with the
// scenario's hosted zones seeded, which a snapshot already holds).
func startAWS(ctx context.Context, o runConfig, sc *scenario.Scenario, seed int64, dir string, from *fakeaws.Snapshot) (backend.Backend, error) {
	in := sc.Fleet.WorkloadIngresses()
	cloud, err := backend.Start(backend.Config{Endpoint: o.AWSEndpoint, Creds: runCreds(o, sc), AWS: &sc.AWS, Clock: sc.Clock(),
		Seed: seed, TargetGroups: sc.Fleet.TargetGroupBindings + in.Count*in.ServicesPerIngress + in.LoadBalancerServices,
		LoadBalancers: in.Count + in.LoadBalancerServices + tgattach.LoadBalancersFor(sc.Fleet.TargetGroupBindings), CallLog: filepath.Join(dir, "aws-calls.jsonl"),
		From: from, Logger: o.Logger.WithName("fakeaws")})
	if err != nil || from != nil || sc.AWS.HostedZones == nil {
		return cloud, err
	}
	names, err := sc.AWS.HostedZones.Names()
	if err == nil {
		err = backend.SeedHostedZones(ctx, cloud, runCreds(o, sc), names)
	}
	if err != nil {
		_ = cloud.Close()
		return nil, fmt.Errorf("aws.hostedZones: %w", err)
	}
	return cloud, nil
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// fileLogger logs JSON lines into path.
func fileLogger(path string) (logr.Logger, func(), error) {
	f, err := os.Create(path)
	if err != nil {
		return logr.Discard(), nil, err
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.AddSync(f), zapcore.InfoLevel)
	zl := zap.New(core)
	return zapr.NewLogger(zl), func() { _ = zl.Sync(); f.Close() }, nil
}

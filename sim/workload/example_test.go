package workload_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/restartsim/restartsim/sim/kubesim"
	"github.com/restartsim/restartsim/sim/oracle/tgbexpect"
	"github.com/restartsim/restartsim/sim/workload"
)

// Plan is pure: the same seed gives the same fleet.
func ExamplePlan() {
	spec := workload.Spec{TGBs: 4, Namespaces: 1, PodsPerService: 2, InstanceShare: 0.25, Nodes: 2}
	f := workload.Plan(spec, rand.New(rand.NewPCG(42, 1)))
	for _, t := range f.TGBs {
		fmt.Println(t.Namespace, t.Name, t.TargetType, len(t.Pods), t.Pods[0].IP)
	}
	// Output:
	// restartsim-00 svc-00000-5jqlm ip 2 10.0.4.1
	// restartsim-00 svc-00001-47b9g ip 2 10.0.4.3
	// restartsim-00 svc-00002-bkkm8 instance 2 10.0.4.5
	// restartsim-00 svc-00003-cf9nf ip 2 10.0.4.7
}

// The whole flow, as the sim core drives it (cfg, c and aws come from the environment).
func Example() {
	var (
		cfg *rest.Config
		c   client.Client
		aws workload.Provisioner
	)
	ctx := context.Background()
	run := map[string]string{"restartsim.io/run": "quickstart-1"}
	fleet := workload.Plan(workload.Spec{TGBs: 200, Namespaces: 1, ReadinessGateShare: 0.5}, rand.New(rand.NewPCG(42, 0)))
	if _, err := fleet.Create(ctx, workload.Options{Client: c, AWS: aws, Labels: run, Progress: os.Stderr}); err != nil {
		panic(err)
	}
	sim, _ := kubesim.NewSimulator(cfg, kubesim.SimulatorOptions{Labels: run})
	go func() { _ = sim.Start(ctx) }()
	<-sim.Synced()

	rng := rand.New(rand.NewPCG(42, 1))
	for _, key := range fleet.ChooseTGBs(rng, 20, nil) {
		change, _ := fleet.RotatePodIPs(ctx, key, 1)
		fmt.Println(change.ID, change.Register, change.Deregister)
	}
	want, _ := tgbexpect.Desired(ctx, c, client.MatchingLabels(run))
	_ = want
	_ = fleet.Cleanup(ctx)
}

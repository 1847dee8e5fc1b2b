package sim

import (
	"context"

	"github.com/restartsim/restartsim/sim/nodesim"
)

// startInstanceNodes runs the simulated kubelets of fakeaws's EC2 instances when the scenario asks
// (cluster.instanceNodes), until the run stops.
func (r *strategyRun) startInstanceNodes(ctx context.Context) {
	n := r.sc.Cluster.InstanceNodes
	if n == nil {
		return
	}
	clock := r.sc.Clock()
	s := nodesim.New(r.client, r.cloud, nodesim.Options{Region: r.sc.AWS.Region, JoinDelay: clock.Wall(n.JoinDelay.Duration),
		RemoveAfter: clock.Wall(n.RemoveAfter.Duration), Logger: r.log.WithName("instance-kubelet")})
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	r.stops.add(func() { cancel(); <-done })
}

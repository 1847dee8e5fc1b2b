package sim

import (
	"context"
	"time"

	"github.com/restartsim/restartsim/sim/nodesim"
	"github.com/restartsim/restartsim/sim/scenario"
)

// startInstanceNodes runs the simulated kubelets of fakeaws's EC2 instances when the scenario asks
// (cluster.instanceNodes), until the run stops.
func (r *strategyRun) startInstanceNodes(ctx context.Context) {
	n := r.sc.Cluster.InstanceNodes
	if n == nil {
		return
	}
	wall := func(d *scenario.Duration) time.Duration { return time.Duration(float64(d.Duration) / r.sc.TimeScale) }
	s := nodesim.New(r.client, r.cloud, nodesim.Options{Region: r.sc.AWS.Region, JoinDelay: wall(n.JoinDelay),
		RemoveAfter: wall(n.RemoveAfter), Logger: r.log.WithName("instance-kubelet")})
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	r.stops.add(func() { cancel(); <-done })
}

package sim

import (
	"k8s.io/utils/ptr"

	"github.com/restartsim/restartsim/sim/scenario"
)

// leaderElecting is implemented by controllers that can tell whether a replacement must acquire a
// Lease before it leads, so the blind-time breakdown can say "lease acquired" or that there is none.
type leaderElecting interface{ leaderElection() bool }

// In-process replicas elect a leader when the strategy says so, by default when the scenario runs
// more than one.
func (p *inProcess) leaderElection() bool { return electsLeader(p.strategy, p.replicas) }

func electsLeader(st scenario.Strategy, replicas int) bool {
	return ptr.Deref(st.LeaderElection, replicas > 1)
}

// An external controller's leader is known only from the Lease the scenario names.
func (x *external) leaderElection() bool { return x.lease != nil }

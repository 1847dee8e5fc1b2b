package sim

// leaderElecting is implemented by controllers that can tell whether a replacement must acquire a
// Lease before it leads, so the blind-time breakdown can say "lease acquired" or that there is none.
type leaderElecting interface{ leaderElection() bool }

// In-process replicas elect a leader when the strategy says so, by default when the scenario runs
// more than one.
func (p *inProcess) leaderElection() bool { return p.strategy.ElectsLeader(p.replicas) }

// An external controller's leader is known only from the Lease the scenario names.
func (x *external) leaderElection() bool { return x.lease != nil }

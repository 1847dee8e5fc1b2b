package restartsimtest

import "github.com/restartsim/restartsim/sim/sut"

// SetupFunc registers the controller under test with mgr, a fresh manager for one replica, as the
// controller's main function would (reconcilers; webhooks are not served). ctx ends when the
// replica stops. An error fails the run.
type SetupFunc = sut.ManagerSetup

// Env is where the replica's AWS is: the run's fakeaws behind a proxy of this replica's own, which
// a crash of the replica cuts. AWS has Region, static Credentials and BaseEndpoint set; make clients
// from it as from config.LoadDefaultConfig (elasticloadbalancingv2.NewFromConfig(env.AWS)).
type Env = sut.ManagerEnv

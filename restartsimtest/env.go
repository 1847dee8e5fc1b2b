package restartsimtest

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/restartsim/restartsim/sim/sut"
)

// SetupFunc registers the controller under test with mgr, a fresh manager for one replica, as the
// controller's main function would (reconcilers, webhooks are not served). ctx ends when the
// replica stops. An error fails the run.
type SetupFunc func(ctx context.Context, mgr manager.Manager, env Env) error

// Env is where the replica's AWS is: the run's fakeaws behind a proxy of this replica's own, which
// a crash of the replica cuts.
type Env struct {
	// AWS has Region, static Credentials and BaseEndpoint set; make clients from it as from
	// config.LoadDefaultConfig (elasticloadbalancingv2.NewFromConfig(env.AWS)).
	AWS aws.Config
	// Endpoint, Region and the key pair are the same settings, for clients built otherwise.
	Endpoint        string
	Region          string
	AccessKeyID     string
	SecretAccessKey string
	// VpcID is fakeaws's default VPC, where the fleet's subnets are.
	VpcID string
	// Namespaces are the fleet's namespaces.
	Namespaces []string
	// Replica numbers the instances from 0 in the order they started: a restart's replacement
	// has the next number.
	Replica int
}

// managerSetup adapts f to the harness's form.
func managerSetup(f SetupFunc) sut.ManagerSetup {
	return func(ctx context.Context, mgr manager.Manager, e sut.ManagerEnv) error {
		return f(ctx, mgr, Env{AWS: e.AWS, Endpoint: e.Endpoint, Region: e.Region, AccessKeyID: e.AccessKeyID,
			SecretAccessKey: e.SecretAccessKey, VpcID: e.VpcID, Namespaces: e.Namespaces, Replica: e.Replica})
	}
}

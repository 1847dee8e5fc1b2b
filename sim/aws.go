package sim

import (
	"github.com/restartsim/restartsim/sim/backend"
	"github.com/restartsim/restartsim/sim/scenario"
)

// runCreds are the credentials and region every AWS client of a run uses.
func runCreds(o Options, sc *scenario.Scenario) backend.Creds {
	return backend.Creds{Region: sc.AWS.Region, AccessKey: o.AccessKeyID, SecretKey: o.SecretAccessKey}
}

package throttlespec

import "regexp"

// Service IDs as the AWS SDK names them.
const (
	ServiceIDELBv2 = "Elastic Load Balancing v2"
	ServiceIDEC2   = "EC2"
)

// Defaults are the upstream defaults: ELBv2 registration 4/s burst 20, Describe 50/s burst 200,
// Modify 3/s burst 20; no EC2 throttle.
func Defaults() Config {
	return Config{
		ServiceIDELBv2: {
			{OperationPtn: regexp.MustCompile(`^RegisterTargets|^DeregisterTargets`), Rate: 4, Burst: 20},
			{OperationPtn: regexp.MustCompile(`^Describe.*`), Rate: 50, Burst: 200},
			{OperationPtn: regexp.MustCompile(`^Modify.*`), Rate: 3, Burst: 20},
		},
	}
}

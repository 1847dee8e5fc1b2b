package throttlespec

import "regexp"

// Service IDs as the AWS SDK names them.
const (
	ServiceIDELBv2 = "Elastic Load Balancing v2"
	ServiceIDEC2   = "EC2"
	// ServiceIDRoute53 is Route53's. It has no default rule (the upstream defaults have none); the entry
	// Route53AWSQuota keeps a client within AWS's quota for the whole API.
	ServiceIDRoute53 = "Route 53"
)

// Route53AWSQuota is the spec entry of AWS's documented Route53 quota, five requests per second per account
// shared by every operation, the bucket fakeaws's aws-documented profile applies.
const Route53AWSQuota = ServiceIDRoute53 + ":.*=5:5"

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

package fakeaws

import (
	"slices"
	"sync"
)

// Operations lists the operations fakeaws serves, by service (elbv2, ec2, sts, route53, iam, ssm, eks), each sorted. They
// are read from the handler tables a Server routes requests to, so a caller (a scenario naming the
// operations that apply a change) can refuse a name no call will ever carry.
func Operations() map[string][]string {
	operationsOnce.Do(func() {
		s, err := New(Options{})
		if err != nil { // the zero Options are valid; a failure here is a bug in the defaults
			panic("fakeaws: the default server: " + err.Error())
		}
		operations = s.Operations()
	})
	out := make(map[string][]string, len(operations))
	for k, v := range operations {
		out[k] = slices.Clone(v)
	}
	return out
}

var (
	operationsOnce sync.Once
	operations     map[string][]string
)

// Operations lists the Query operations s serves, by service, each sorted. A Query service added to
// the server adds its table here.
func (s *Server) Operations() map[string][]string {
	return map[string][]string{
		ServiceELBv2: s.elb.Operations(),
		ServiceEC2:   s.ec2.Operations(),
		ServiceSTS:   s.sts.Operations(),
		// Route53 is REST-XML, not Query, but a change's mutations name its operations the same way.
		ServiceRoute53: s.route53.Operations(),
		ServiceIAM:     s.iam.Operations(),
		ServiceSSM:     s.ssm.Operations(),
		ServiceEKS:     {"DescribeCluster"},
		// ACM is AWS JSON 1.1; its operations are named in X-Amz-Target.
		ServiceACM: s.acm.Operations(),
	}
}

// IsOperation reports whether fakeaws serves an operation of that name in any Query service.
func IsOperation(name string) bool {
	for _, ops := range Operations() {
		if slices.Contains(ops, name) {
			return true
		}
	}
	return false
}

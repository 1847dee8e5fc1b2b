package predict

import (
	"strings"

	"github.com/restartsim/restartsim/fakeaws"
)

// subject is the resource a call is about, the most specific it names (a DescribeRules names its
// listener, a DescribeListeners its load balancer), and that resource's kind; "" for a call that
// names none, such as a filtered EC2 describe.
func subject(c *fakeaws.Call) (id, kind string) {
	for _, arn := range []string{c.RuleARN, c.ListenerARN, c.TargetGroupARN, c.LoadBalancerARN} {
		if arn != "" {
			return arn, arnKind(arn)
		}
	}
	if c.HostedZoneID != "" {
		if len(c.RecordSets) > 0 {
			rs := c.RecordSets[0]
			return fakeaws.RecordSetResource(c.HostedZoneID, rs.Name, rs.Type, rs.SetIdentifier), "route53RecordSet"
		}
		return fakeaws.HostedZoneResource(c.HostedZoneID), "route53HostedZone"
	}
	if c.SecurityGroupID != "" {
		return fakeaws.SecurityGroupResource(c.SecurityGroupID), "securityGroup"
	}
	if c.S3Bucket != "" {
		return fakeaws.S3BucketResource(c.S3Bucket), "s3Bucket"
	}
	return "", ""
}

// arnKind is the resource type of an ELBv2 ARN: targetgroup, loadbalancer, listener or
// listener-rule (arn:aws:elasticloadbalancing:region:account:targetgroup/name/id).
func arnKind(arn string) string {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) < 6 {
		return "resource"
	}
	typ, _, _ := strings.Cut(parts[5], "/")
	return typ
}

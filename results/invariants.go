package results

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// MetricOrphanedResources counts the AWS resources that objects deleted during the run left behind
// (Invariants.Orphaned). Any is an invariant violation unless the scenario declares the leftovers
// it expects of a controller that keeps AWS resources, with a threshold on this metric: judged then
// as a threshold, like MetricUnappliedChanges.
const MetricOrphanedResources = "orphaned_resources"

// MetricLeakedInstances counts the EC2 instances left pending or running with no Node and no
// NodeClaim naming them (Invariants.LeakedInstances): capacity AWS bills that nothing in the
// cluster uses or will take down. Each is also an invariant violation.
const MetricLeakedInstances = "leaked_instances"

// ViolationLeakedInstance is the kind of a Violation naming a leaked EC2 instance.
const ViolationLeakedInstance = "leaked-instance"

// ViolationOrphan is the kind of a Violation naming an AWS resource a deleted object left.
const ViolationOrphan = "object-orphan"

// awsKindNouns name the AWS kinds of object groups (sim/objects' AWS kinds) in the plural.
var awsKindNouns = map[string]string{
	"targetGroup": "target groups", "loadBalancer": "load balancers", "listener": "listeners", "rule": "listener rules",
	"route53HostedZone": "hosted zones", "route53RecordSet": "records", "securityGroup": "security groups", "s3Bucket": "S3 buckets",
}

// OrphanCount is the number of orphaned AWS resources, of every kind.
func (inv *Invariants) OrphanCount() int {
	n := 0
	for _, c := range inv.Orphaned {
		n += c
	}
	return n
}

// Describe says what the end-state check found, each count in its own words: targets for
// bindings, objects for object groups, and orphaned AWS resources by their kind.
func (inv *Invariants) Describe() string {
	parts := []string{fmt.Sprintf("%d missing", inv.Missing)}
	if inv.Stale > 0 || inv.ObjectsFailing == 0 && inv.OrphanCount() == 0 {
		parts = append(parts, fmt.Sprintf("%d stale targets", inv.Stale))
	}
	if inv.ObjectsFailing > 0 {
		parts = append(parts, fmt.Sprintf("%d objects failing their invariant", inv.ObjectsFailing))
	}
	for _, k := range slices.Sorted(maps.Keys(inv.Orphaned)) {
		noun, ok := awsKindNouns[k]
		if !ok {
			noun = k + " resources"
		}
		expected := ""
		if inv.OrphansExpected {
			expected = " (expected)"
		}
		parts = append(parts, fmt.Sprintf("%d orphaned %s%s", inv.Orphaned[k], noun, expected))
	}
	if inv.LeakedInstances > 0 {
		parts = append(parts, fmt.Sprintf("%d leaked EC2 instances", inv.LeakedInstances))
	}
	return strings.Join(parts, ", ")
}

// ExpectOrphans takes the orphans as the scenario's declared leftovers: they leave Violations
// (the threshold on MetricOrphanedResources judges their count) and no longer fail the check.
func (inv *Invariants) ExpectOrphans() {
	inv.OrphansExpected = true
	inv.Violations = slices.DeleteFunc(inv.Violations, func(v Violation) bool { return v.Kind == ViolationOrphan })
	inv.Passed = inv.Missing == 0 && inv.Stale == 0 && inv.ObjectsFailing == 0 && inv.LeakedInstances == 0 && len(inv.Violations) == 0
}

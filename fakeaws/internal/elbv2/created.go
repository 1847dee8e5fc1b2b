package elbv2

// Created is the resource a successful Create* call made, from its result: which of target group, load
// balancer, listener or rule, and its ARN ("" for any other result). The recorder names it on the call, so
// that a create can be matched to what it made, as a Modify call is by the ARN it names.
func Created(operation string, result any) (targetGroup, loadBalancer, listener, rule string) {
	switch r := result.(type) {
	case targetGroupsResult:
		if operation == "CreateTargetGroup" && len(r.TargetGroups) == 1 {
			targetGroup = r.TargetGroups[0].TargetGroupArn
		}
	case loadBalancersResult:
		if operation == "CreateLoadBalancer" && len(r.LoadBalancers) == 1 {
			loadBalancer = r.LoadBalancers[0].LoadBalancerArn
		}
	case listenersResult:
		if operation == "CreateListener" && len(r.Listeners) == 1 {
			listener = r.Listeners[0].ListenerArn
		}
	case rulesResult:
		if operation == "CreateRule" && len(r.Rules) == 1 {
			rule = r.Rules[0].RuleArn
		}
	}
	return
}

package elbv2

import (
	"strconv"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Attribute keys with rules of their own.
const (
	attrCrossZone      = "load_balancing.cross_zone.enabled"
	attrDNSCount       = "target_group_health.dns_failover.minimum_healthy_targets.count"
	attrDNSPercent     = "target_group_health.dns_failover.minimum_healthy_targets.percentage"
	attrRoutingCount   = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count"
	attrRoutingPercent = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage"
)

// targetGroupHealthValue checks a target group health threshold: a count is 1 or more (DNS failover's may
// also be "off"), a percentage 1 to 100 or "off". Other keys pass.
func targetGroupHealthValue(k, v string) error {
	hi, offOK := 0, true
	switch k {
	case attrDNSCount:
	case attrRoutingCount:
		offOK = false
	case attrDNSPercent, attrRoutingPercent:
		hi = 100
	default:
		return nil
	}
	if v == "off" && offOK {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err == nil && n >= 1 && (hi == 0 || n <= hi) {
		return nil
	}
	want := "an integer of at least 1"
	if hi > 0 {
		want = "an integer from 1 to 100"
	}
	if offOK {
		want += " or 'off'"
	}
	return query.Errorf("InvalidConfigurationRequest", "Attribute '%s' must be %s, not '%s'", k, want, v)
}

// failoverOrder checks that DNS failover's thresholds are not below unhealthy state routing's, so that a zone
// leaves DNS before or when its load balancer node starts routing to unhealthy targets.
func failoverOrder(changes, current map[string]string) error {
	val := func(k string) (int, bool) {
		v, ok := changes[k]
		if !ok {
			v = current[k]
		}
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	for _, pair := range [][2]string{{attrDNSCount, attrRoutingCount}, {attrDNSPercent, attrRoutingPercent}} {
		dns, dok := val(pair[0])
		routing, rok := val(pair[1])
		if dok && rok && dns < routing {
			return query.Errorf("InvalidConfigurationRequest", "'%s' (%d) must be greater than or equal to '%s' (%d)", pair[0], dns, pair[1], routing)
		}
	}
	return nil
}

// isApplication reports whether arn names an Application Load Balancer.
func (s *Service) isApplication(arn string) bool {
	lb, err := s.st.LoadBalancer(arn)
	return err == nil && lb.Type == state.LBTypeApplication
}

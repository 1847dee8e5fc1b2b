package elbv2

import (
	"maps"
	"slices"
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// Attribute defaults as a fresh resource describes them; a key not listed for a resource is not recognised.
var (
	albAttributes = map[string]string{
		"access_logs.s3.enabled": "false", "access_logs.s3.bucket": "", "access_logs.s3.prefix": "",
		"connection_logs.s3.enabled": "false", "connection_logs.s3.bucket": "", "connection_logs.s3.prefix": "",
		state.AttrDeletionProtection: "false", "idle_timeout.timeout_seconds": "60", "client_keep_alive.seconds": "3600",
		"routing.http.desync_mitigation_mode": "defensive", "routing.http.drop_invalid_header_fields.enabled": "false",
		"routing.http.preserve_host_header.enabled": "false", "routing.http.x_amzn_tls_version_and_cipher_suite.enabled": "false",
		"routing.http.xff_client_port.enabled": "false", "routing.http.xff_header_processing.mode": "append",
		"routing.http2.enabled": "true", "waf.fail_open.enabled": "false", "zonal_shift.config.enabled": "false",
		attrCrossZone: "true",
	}
	nlbAttributes = map[string]string{
		"access_logs.s3.enabled": "false", "access_logs.s3.bucket": "", "access_logs.s3.prefix": "",
		state.AttrDeletionProtection: "false", "load_balancing.cross_zone.enabled": "false",
		"dns_record.client_routing_policy": "any_availability_zone", "zonal_shift.config.enabled": "false",
	}
	albTGAttributes = map[string]string{
		"deregistration_delay.timeout_seconds": "300", "stickiness.enabled": "false", "stickiness.type": "lb_cookie",
		"stickiness.lb_cookie.duration_seconds": "86400", "stickiness.app_cookie.cookie_name": "",
		"stickiness.app_cookie.duration_seconds": "86400", "slow_start.duration_seconds": "0",
		"load_balancing.algorithm.type": "round_robin", "load_balancing.algorithm.anomaly_mitigation": "off",
		"load_balancing.cross_zone.enabled": "use_load_balancer_configuration",
		attrDNSCount:                        "1", attrDNSPercent: "off", attrRoutingCount: "1", attrRoutingPercent: "off",
	}
	nlbTGAttributes = map[string]string{
		"deregistration_delay.timeout_seconds": "300", "deregistration_delay.connection_termination.enabled": "false",
		"proxy_protocol_v2.enabled": "false", "preserve_client_ip.enabled": "false", "stickiness.enabled": "false",
		"stickiness.type": "source_ip", "load_balancing.cross_zone.enabled": "use_load_balancer_configuration",
		"target_health_state.unhealthy.connection_termination.enabled": "true",
		attrDNSCount: "1", attrDNSPercent: "off", attrRoutingCount: "1", attrRoutingPercent: "off",
	}
	lambdaTGAttributes  = map[string]string{"lambda.multi_value_headers.enabled": "false"}
	httpListenerAttrs   = map[string]string{"routing.http.response.server.enabled": "true"}
	tcpListenerAttrs    = map[string]string{"tcp.idle_timeout.seconds": "350"}
	numericAttributeMax = map[string]int{
		"idle_timeout.timeout_seconds": 4000, "client_keep_alive.seconds": 604800, "deregistration_delay.timeout_seconds": 3600,
		"stickiness.lb_cookie.duration_seconds": 604800, "stickiness.app_cookie.duration_seconds": 604800,
		"slow_start.duration_seconds": 900, "tcp.idle_timeout.seconds": 6000,
	}
)

func tgDefaults(tg state.TargetGroup) map[string]string {
	switch {
	case tg.TargetType == "lambda":
		return lambdaTGAttributes
	case tg.Protocol == "HTTP" || tg.Protocol == "HTTPS":
		return albTGAttributes
	}
	return nlbTGAttributes
}

// attributeChanges parses Attributes.member.N against a resource's known keys and checks the values.
func attributeChanges(f *query.Form, known map[string]string) (map[string]string, error) {
	members := f.Members("Attributes.member")
	if len(members) == 0 {
		return nil, validationf("1 validation error detected: Value null at 'attributes' failed to satisfy constraint: Member must not be null")
	}
	if len(members) > 20 {
		return nil, validationf("1 validation error detected: Value at 'attributes' failed to satisfy constraint: Member must have length less than or equal to 20")
	}
	out := map[string]string{}
	for _, p := range members {
		k, v := f.Get(p+".Key"), f.Get(p+".Value")
		def, ok := known[k]
		if !ok {
			return nil, validationf("Attribute key '%s' is not recognized", k)
		}
		if def == "true" || def == "false" { // a boolean attribute
			if v != "true" && v != "false" {
				return nil, query.Errorf("InvalidConfigurationRequest", "Attribute '%s' must be 'true' or 'false', not '%s'", k, v)
			}
		}
		if err := targetGroupHealthValue(k, v); err != nil {
			return nil, err
		}
		if hi, ok := numericAttributeMax[k]; ok {
			if n, err := strconv.Atoi(v); err != nil || n < 0 || n > hi {
				return nil, query.Errorf("InvalidConfigurationRequest", "Attribute '%s' must be an integer between 0 and %d, not '%s'", k, hi, v)
			}
		}
		out[k] = v
	}
	return out, nil
}

// attributesToWire merges set values over the defaults, sorted by key.
func attributesToWire(defaults, set map[string]string) attributesResult {
	keys := make([]string, 0, len(defaults))
	for k := range defaults {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	res := attributesResult{Attributes: make([]xAttribute, 0, len(keys))}
	for _, k := range keys {
		v, ok := set[k]
		if !ok {
			v = defaults[k]
		}
		res.Attributes = append(res.Attributes, xAttribute{Key: k, Value: v})
	}
	return res
}

func lbDefaults(lb state.LoadBalancer) map[string]string {
	if lb.Type == state.LBTypeNetwork {
		return nlbAttributes
	}
	return albAttributes
}

func listenerDefaults(l state.Listener) map[string]string {
	if l.Protocol == "HTTP" || l.Protocol == "HTTPS" {
		return httpListenerAttrs
	}
	return tcpListenerAttrs
}

// attributeOwner is a kind of resource with attributes: param names it in requests, get returns its defaults
// and the values set, put records changes and returns the values set afterwards.
type attributeOwner struct {
	param string
	get   func(arn string) (defaults, set map[string]string, err error)
	put   func(arn string, changes map[string]string) (map[string]string, error)
	// check, when set, vets the changes against the resource's values (defaults merged with those set).
	check func(arn string, changes, current map[string]string) error
}

func (s *Service) attributeOwners() (lb, tg, listener attributeOwner) {
	lb = attributeOwner{param: "LoadBalancerArn",
		get: func(arn string) (map[string]string, map[string]string, error) {
			x, err := s.st.LoadBalancer(arn)
			return lbDefaults(x), x.Attributes, err
		},
		put: func(arn string, c map[string]string) (map[string]string, error) {
			x, err := s.st.SetLoadBalancerAttributes(arn, c)
			return x.Attributes, err
		},
		check: func(arn string, c, _ map[string]string) error {
			if v, ok := c[attrCrossZone]; ok && v != "true" && s.isApplication(arn) {
				return query.Errorf("InvalidConfigurationRequest", "Cross-zone load balancing is always on for Application Load Balancers: '%s' cannot be '%s'", attrCrossZone, v)
			}
			return nil
		}}
	tg = attributeOwner{param: "TargetGroupArn",
		get: func(arn string) (map[string]string, map[string]string, error) {
			x, err := s.st.TargetGroup(arn)
			return tgDefaults(x), x.Attributes, err
		},
		put: func(arn string, c map[string]string) (map[string]string, error) {
			x, err := s.st.SetTargetGroupAttributes(arn, c)
			return x.Attributes, err
		},
		check: func(_ string, c, current map[string]string) error { return failoverOrder(c, current) }}
	listener = attributeOwner{param: "ListenerArn",
		get: func(arn string) (map[string]string, map[string]string, error) {
			ls, missing := s.st.ListenersByARN([]string{arn})
			if missing >= 0 {
				return nil, nil, query.Errorf("ListenerNotFound", "Listener '%s' not found", arn)
			}
			return listenerDefaults(ls[0]), ls[0].Attributes, nil
		},
		put: func(arn string, c map[string]string) (map[string]string, error) {
			x, err := s.st.SetListenerAttributes(arn, c)
			return x.Attributes, err
		}}
	return lb, tg, listener
}

// describeAttributes is the Describe*Attributes operation of an owner.
func describeAttributes(o attributeOwner) Handler {
	return func(_ time.Time, f *query.Form) (any, error) {
		arn, err := required(f, o.param)
		if err != nil {
			return nil, err
		}
		defaults, set, err := o.get(arn)
		if err != nil {
			return nil, err
		}
		return attributesToWire(defaults, set), nil
	}
}

// modifyAttributes is the Modify*Attributes operation of an owner; it answers with every attribute.
func modifyAttributes(o attributeOwner) Handler {
	return func(_ time.Time, f *query.Form) (any, error) {
		arn, err := required(f, o.param)
		if err != nil {
			return nil, err
		}
		defaults, set, err := o.get(arn)
		if err != nil {
			return nil, err
		}
		changes, err := attributeChanges(f, defaults)
		if err != nil {
			return nil, err
		}
		if o.check != nil {
			current := maps.Clone(defaults)
			maps.Copy(current, set)
			if err := o.check(arn, changes, current); err != nil {
				return nil, err
			}
		}
		set, err = o.put(arn, changes)
		if err != nil {
			return nil, err
		}
		return attributesToWire(defaults, set), nil
	}
}

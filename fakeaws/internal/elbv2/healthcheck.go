package elbv2

import (
	"slices"
	"strconv"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// healthCheckProtocols are the protocols a health check may use; GENEVE, TLS, UDP and TCP_UDP carry traffic
// but are never health checked.
var healthCheckProtocols = []string{"HTTP", "HTTPS", "TCP"}

// defaultHealthCheck is the health check CreateTargetGroup gives a group of target type tt and protocol when the
// request names none of its settings. The API reference gives the defaults per protocol: HTTP times out after
// 6 s, HTTPS, TCP and TLS after 10 s; GENEVE (a Gateway Load Balancer's) checks TCP port 80 every 10 s with a
// 5 s timeout; an alb group (an Application Load Balancer behind a Network Load Balancer) checks over HTTP.
func defaultHealthCheck(tt, protocol string) state.HealthCheck {
	switch {
	case tt == "alb":
		return state.HealthCheck{Enabled: true, Protocol: "HTTP", Port: "traffic-port", Path: "/", IntervalSeconds: 30,
			TimeoutSeconds: 6, HealthyThreshold: 5, UnhealthyThreshold: 2, Matcher: "200-399"}
	case protocol == "HTTP":
		return state.HealthCheck{Enabled: true, Protocol: protocol, Port: "traffic-port", Path: "/", IntervalSeconds: 30,
			TimeoutSeconds: 6, HealthyThreshold: 5, UnhealthyThreshold: 2, Matcher: "200"}
	case protocol == "HTTPS":
		return state.HealthCheck{Enabled: true, Protocol: protocol, Port: "traffic-port", Path: "/", IntervalSeconds: 30,
			TimeoutSeconds: 10, HealthyThreshold: 5, UnhealthyThreshold: 2, Matcher: "200"}
	case protocol == "GENEVE":
		return state.HealthCheck{Enabled: true, Protocol: "TCP", Port: "80", IntervalSeconds: 10,
			TimeoutSeconds: 5, HealthyThreshold: 5, UnhealthyThreshold: 2}
	default:
		return state.HealthCheck{Enabled: true, Protocol: "TCP", Port: "traffic-port", IntervalSeconds: 30,
			TimeoutSeconds: 10, HealthyThreshold: 5, UnhealthyThreshold: 2}
	}
}

// lambdaHealthCheck is a Lambda group's: disabled unless asked for, every 35 s with a 30 s timeout, and five
// failures to turn unhealthy.
var lambdaHealthCheck = state.HealthCheck{Enabled: false, Path: "/", IntervalSeconds: 35, TimeoutSeconds: 30,
	HealthyThreshold: 5, UnhealthyThreshold: 5, Matcher: "200"}

// applyHealthCheck copies the HealthCheck* parameters present in f onto the health check of tg.
func applyHealthCheck(f *query.Form, tg *state.TargetGroup) error {
	hc := &tg.HealthCheck
	if f.Has("HealthCheckEnabled") {
		b, err := f.Bool("HealthCheckEnabled", true)
		if err != nil {
			return query.Errorf("ValidationError", "Invalid value '%s' for healthCheckEnabled", f.Get("HealthCheckEnabled"))
		}
		hc.Enabled = b
	}
	if v := f.Get("HealthCheckProtocol"); v != "" {
		if err := healthCheckProtocol(tg, v); err != nil {
			return err
		}
		hc.Protocol = v
	}
	if v := f.Get("HealthCheckPort"); v != "" {
		if n, err := strconv.Atoi(v); v != "traffic-port" && (err != nil || n < 1 || n > 65535) {
			return query.Errorf("ValidationError", "Health check port '%s' must be 'traffic-port' or between 1 and 65535", v)
		}
		hc.Port = v
	}
	if v := f.Get("HealthCheckPath"); v != "" {
		if !strings.HasPrefix(v, "/") || len(v) > 1024 {
			return query.Errorf("ValidationError", "Health check path '%s' must begin with '/' and be at most 1024 characters", v)
		}
		hc.Path = v
	}
	for _, p := range []struct {
		key    string
		lo, hi int64
		dst    *int32
	}{
		{"HealthCheckIntervalSeconds", 5, 300, &hc.IntervalSeconds},
		{"HealthCheckTimeoutSeconds", 2, 120, &hc.TimeoutSeconds},
		{"HealthyThresholdCount", 2, 10, &hc.HealthyThreshold},
		{"UnhealthyThresholdCount", 2, 10, &hc.UnhealthyThreshold},
	} {
		n, ok, err := intParam(f, p.key, p.lo, p.hi)
		if err != nil {
			return err
		}
		if ok {
			*p.dst = int32(n)
		}
	}
	if v := f.Get("Matcher.HttpCode"); v != "" {
		hc.Matcher = v
	}
	// An HTTP(S) check must time out before the next one; a TCP check (a Network Load Balancer's,
	// whose LBC default is 10 s of each) may take the whole interval.
	switch {
	case (hc.Protocol == "HTTP" || hc.Protocol == "HTTPS") && hc.TimeoutSeconds >= hc.IntervalSeconds:
		return query.Errorf("ValidationError", "Health check timeout '%d' must be smaller than the interval '%d'", hc.TimeoutSeconds, hc.IntervalSeconds)
	case hc.TimeoutSeconds > hc.IntervalSeconds:
		return query.Errorf("ValidationError", "Health check timeout '%d' must not be greater than the interval '%d'", hc.TimeoutSeconds, hc.IntervalSeconds)
	}
	return nil
}

// healthCheckProtocol checks a requested health check protocol against the group: TCP does not check an
// HTTP(S) group, and an alb group's load balancer answers HTTP(S) only.
func healthCheckProtocol(tg *state.TargetGroup, v string) error {
	switch {
	case !slices.Contains(healthCheckProtocols, v):
		return query.Errorf("ValidationError", "Health check protocol '%s' is not supported; use one of %v", v, healthCheckProtocols)
	case v == "TCP" && (tg.Protocol == "HTTP" || tg.Protocol == "HTTPS"):
		return query.Errorf("ValidationError", "Health check protocol 'TCP' is not supported for target groups with the '%s' protocol", tg.Protocol)
	case v == "TCP" && tg.TargetType == "alb":
		return query.Errorf("ValidationError", "Health check protocol 'TCP' is not supported for target groups with target type 'alb'")
	}
	return nil
}

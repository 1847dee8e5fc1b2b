package elbv2

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

var protocols = []string{"HTTP", "HTTPS", "TCP", "TLS", "UDP", "TCP_UDP", "GENEVE"}

func defaultHealthCheck(protocol string) state.HealthCheck {
	switch protocol {
	case "HTTP", "HTTPS":
		return state.HealthCheck{Enabled: true, Protocol: protocol, Port: "traffic-port", Path: "/", IntervalSeconds: 30,
			TimeoutSeconds: 5, HealthyThreshold: 5, UnhealthyThreshold: 2, Matcher: "200"}
	default:
		return state.HealthCheck{Enabled: true, Protocol: "TCP", Port: "traffic-port", IntervalSeconds: 30,
			TimeoutSeconds: 10, HealthyThreshold: 5, UnhealthyThreshold: 2}
	}
}

// applyHealthCheck copies the HealthCheck* parameters present in f onto hc.
func applyHealthCheck(f *query.Form, hc *state.HealthCheck) error {
	if f.Has("HealthCheckEnabled") {
		b, err := f.Bool("HealthCheckEnabled", true)
		if err != nil {
			return query.Errorf("ValidationError", "Invalid value '%s' for healthCheckEnabled", f.Get("HealthCheckEnabled"))
		}
		hc.Enabled = b
	}
	if v := f.Get("HealthCheckProtocol"); v != "" {
		if !slices.Contains(protocols, v) {
			return query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'healthCheckProtocol' failed to satisfy constraint: Member must satisfy enum value set: %v", v, protocols)
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

// protocolVersion is the ProtocolVersion of a new group of protocol: HTTP1 (the default), HTTP2 or
// GRPC for HTTP and HTTPS, which AWS describes; none for the others.
func protocolVersion(f *query.Form, protocol string) (string, error) {
	v := f.Get("ProtocolVersion")
	if protocol != "HTTP" && protocol != "HTTPS" {
		if v != "" {
			return "", query.Errorf("ValidationError", "Protocol version is only supported for HTTP and HTTPS target groups")
		}
		return "", nil
	}
	switch v {
	case "":
		return "HTTP1", nil
	case "HTTP1", "HTTP2", "GRPC":
		return v, nil
	}
	return "", query.Errorf("ValidationError", "Protocol version '%s' must be one of HTTP1, HTTP2 or GRPC", v)
}

func (s *Service) createTargetGroup(now time.Time, f *query.Form) (any, error) {
	name, err := required(f, "Name")
	if err != nil {
		return nil, err
	}
	tg := state.TargetGroup{Name: name, TargetType: f.Get("TargetType"), Protocol: f.Get("Protocol"), VPCID: f.Get("VpcId"), IPAddressType: f.Get("IpAddressType")}
	if tg.TargetType == "" {
		tg.TargetType = "instance"
	}
	switch tg.TargetType {
	case "instance", "ip":
		if tg.Protocol == "" {
			return nil, query.Errorf("ValidationError", "A protocol must be specified")
		}
		if !slices.Contains(protocols, tg.Protocol) {
			return nil, query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'protocol' failed to satisfy constraint: Member must satisfy enum value set: %v", tg.Protocol, protocols)
		}
		port, ok, err := intParam(f, "Port", 1, 65535)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, query.Errorf("ValidationError", "A port must be specified")
		}
		tg.Port = int32(port)
		if tg.IPAddressType == "" {
			tg.IPAddressType = "ipv4"
		}
		if tg.IPAddressType != "ipv4" && tg.IPAddressType != "ipv6" {
			return nil, query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'ipAddressType' failed to satisfy constraint: Member must satisfy enum value set: [ipv4, ipv6]", tg.IPAddressType)
		}
		if tg.ProtocolVersion, err = protocolVersion(f, tg.Protocol); err != nil {
			return nil, err
		}
		tg.HealthCheck = defaultHealthCheck(tg.Protocol)
	case "lambda":
		tg.HealthCheck = state.HealthCheck{Enabled: false, Path: "/", IntervalSeconds: 35, TimeoutSeconds: 30, HealthyThreshold: 5, UnhealthyThreshold: 2, Matcher: "200"}
	default:
		return nil, query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'targetType' failed to satisfy constraint: Member must satisfy enum value set: [instance, ip, lambda]", tg.TargetType)
	}
	if err := applyHealthCheck(f, &tg.HealthCheck); err != nil {
		return nil, err
	}
	if tg.Tags, err = tags(f, "Tags.member"); err != nil {
		return nil, err
	}
	created, err := s.st.CreateTargetGroup(tg, now)
	if err != nil {
		return nil, err
	}
	return targetGroupsResult{TargetGroups: []xTargetGroup{toWire(created)}}, nil
}

func (s *Service) deleteTargetGroup(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "TargetGroupArn")
	if err != nil {
		return nil, err
	}
	if err := validARN(arn); err != nil {
		return nil, err
	}
	return nil, s.st.DeleteTargetGroup(arn)
}

func validARN(arn string) error {
	if !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":targetgroup/") {
		return query.Errorf("ValidationError", "'%s' is not a valid target group ARN", arn)
	}
	return nil
}

func (s *Service) describeTargetGroups(_ time.Time, f *query.Form) (any, error) {
	arns := f.Strings("TargetGroupArns.member")
	names := f.Strings("Names.member")
	if len(arns) > 0 && len(names) > 0 {
		return nil, query.Errorf("ValidationError", "Target group names and target group ARNs cannot be specified at the same time")
	}
	lb := f.Get("LoadBalancerArn")
	if lb != "" && (len(arns) > 0 || len(names) > 0) {
		return nil, query.Errorf("ValidationError", "A load balancer ARN cannot be specified together with target group names or ARNs")
	}
	pageSize, ok, err := intParam(f, "PageSize", 1, 400)
	if err != nil {
		return nil, err
	}
	if !ok {
		pageSize = 400
	}
	var sel []state.TargetGroup
	switch {
	case len(arns) > 0:
		sel, err = s.byARN(arns)
	case len(names) > 0:
		sel, err = s.byName(names)
	case lb != "":
		sel, err = s.st.TargetGroupsOf(lb)
	}
	if err != nil {
		return nil, err
	}
	start := 0
	if m := f.Get("Marker"); m != "" {
		if start, err = decodeMarker(m); err != nil {
			return nil, err
		}
	}
	var page []state.TargetGroup
	total := len(sel)
	if len(arns) > 0 || len(names) > 0 || lb != "" {
		start = min(start, total)
		page = sel[start:min(start+int(pageSize), total)]
	} else { // copy only the page, not every group
		page, total = s.st.TargetGroupPage(start, int(pageSize))
		start = min(start, total)
	}
	res := targetGroupsResult{TargetGroups: make([]xTargetGroup, 0, len(page))}
	for _, tg := range page {
		res.TargetGroups = append(res.TargetGroups, toWire(tg))
	}
	if end := start + len(page); end < total {
		res.NextMarker = encodeMarker(end)
	}
	return res, nil
}

// byARN looks the groups up; the first ARN that is malformed or unknown decides the error.
func (s *Service) byARN(arns []string) ([]state.TargetGroup, error) {
	sel, missing := s.st.TargetGroupsByARN(arns)
	if missing < 0 {
		return sel, nil
	}
	if err := validARN(arns[missing]); err != nil { // a malformed ARN is always missing too
		return nil, err
	}
	return nil, query.Errorf("TargetGroupNotFound", "One or more target groups not found")
}

func (s *Service) byName(names []string) ([]state.TargetGroup, error) {
	sel, missing := s.st.TargetGroupsByName(names)
	if missing >= 0 {
		return nil, query.Errorf("TargetGroupNotFound", "One or more target groups not found")
	}
	return sel, nil
}

func (s *Service) modifyTargetGroup(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "TargetGroupArn")
	if err != nil {
		return nil, err
	}
	tg, err := s.st.ModifyTargetGroup(arn, func(tg *state.TargetGroup) error { return applyHealthCheck(f, &tg.HealthCheck) })
	if err != nil {
		return nil, err
	}
	return targetGroupsResult{TargetGroups: []xTargetGroup{toWire(tg)}}, nil
}

package elbv2

import (
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

var protocols = []string{"HTTP", "HTTPS", "TCP", "TLS", "UDP", "TCP_UDP", "GENEVE"}

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

// trafficSettings reads the protocol, port, address type and protocol version of a group that receives
// traffic. A GENEVE group listens on 6081 only; an alb group forwards TCP to its load balancer's listener.
func trafficSettings(f *query.Form, tg *state.TargetGroup) error {
	if tg.Protocol == "" {
		return query.Errorf("ValidationError", "A protocol must be specified")
	}
	if !slices.Contains(protocols, tg.Protocol) {
		return query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'protocol' failed to satisfy constraint: Member must satisfy enum value set: %v", tg.Protocol, protocols)
	}
	if tg.TargetType == "alb" && tg.Protocol != "TCP" {
		return query.Errorf("ValidationError", "Target groups with target type 'alb' support only the 'TCP' protocol")
	}
	port, ok, err := intParam(f, "Port", 1, 65535)
	if err != nil {
		return err
	}
	if !ok {
		return query.Errorf("ValidationError", "A port must be specified")
	}
	if tg.Protocol == "GENEVE" && port != 6081 {
		return query.Errorf("ValidationError", "Port '%d' is not supported for the GENEVE protocol; use 6081", port)
	}
	tg.Port = int32(port)
	if tg.IPAddressType == "" {
		tg.IPAddressType = "ipv4"
	}
	if tg.IPAddressType != "ipv4" && tg.IPAddressType != "ipv6" {
		return query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'ipAddressType' failed to satisfy constraint: Member must satisfy enum value set: [ipv4, ipv6]", tg.IPAddressType)
	}
	tg.ProtocolVersion, err = protocolVersion(f, tg.Protocol)
	return err
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
	case "instance", "ip", "alb":
		if err := trafficSettings(f, &tg); err != nil {
			return nil, err
		}
		tg.HealthCheck = defaultHealthCheck(tg.TargetType, tg.Protocol)
	case "lambda":
		tg.HealthCheck = lambdaHealthCheck
	default:
		return nil, query.Errorf("ValidationError", "1 validation error detected: Value '%s' at 'targetType' failed to satisfy constraint: Member must satisfy enum value set: [instance, ip, lambda, alb]", tg.TargetType)
	}
	if err := applyHealthCheck(f, &tg); err != nil {
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
	tg, err := s.st.ModifyTargetGroup(arn, func(tg *state.TargetGroup) error { return applyHealthCheck(f, tg) })
	if err != nil {
		return nil, err
	}
	return targetGroupsResult{TargetGroups: []xTargetGroup{toWire(tg)}}, nil
}

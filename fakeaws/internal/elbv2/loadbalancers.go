package elbv2

import (
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

func enumParam(f *query.Form, key, def string, allowed ...string) (string, error) {
	v := f.Get(key)
	if v == "" {
		return def, nil
	}
	for _, a := range allowed {
		if v == a {
			return v, nil
		}
	}
	return "", validationf("1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must satisfy enum value set: [%s]", v, lowerFirst(key), strings.Join(allowed, ", "))
}

func (s *Service) createLoadBalancer(now time.Time, f *query.Form) (any, error) {
	name, err := required(f, "Name")
	if err != nil {
		return nil, err
	}
	lb := state.LoadBalancer{Name: name, SecurityGroupIDs: f.Strings("SecurityGroups.member")}
	if lb.Type, err = enumParam(f, "Type", state.LBTypeApplication, state.LBTypeApplication, state.LBTypeNetwork, "gateway"); err != nil {
		return nil, err
	}
	if lb.Type == "gateway" {
		return nil, query.Errorf("InvalidConfigurationRequest", "Gateway load balancers are not supported by this endpoint")
	}
	if lb.Scheme, err = enumParam(f, "Scheme", state.SchemeInternetFacing, state.SchemeInternetFacing, state.SchemeInternal); err != nil {
		return nil, err
	}
	if lb.IPAddressType, err = enumParam(f, "IpAddressType", "ipv4", "ipv4", "dualstack", "dualstack-without-public-ipv4"); err != nil {
		return nil, err
	}
	if lb.IPAddressType == "dualstack-without-public-ipv4" && (lb.Type != state.LBTypeApplication || lb.Scheme != state.SchemeInternetFacing) {
		return nil, validationf("IP address type 'dualstack-without-public-ipv4' is only supported by internet-facing application load balancers")
	}
	if lb.Subnets, err = subnetMappings(f, lb.Type); err != nil {
		return nil, err
	}
	if lb.IPv6SourceNATPrefix, err = ipv6SourceNATPrefix(f, lb); err != nil {
		return nil, err
	}
	if lb.Tags, err = tags(f, "Tags.member"); err != nil {
		return nil, err
	}
	created, err := s.st.CreateLoadBalancer(lb, now)
	if err != nil {
		return nil, err
	}
	return loadBalancersResult{LoadBalancers: []xLoadBalancer{lbToWire(created, now)}}, nil
}

// ipv6SourceNATPrefix reads EnablePrefixForIpv6SourceNat (on|off, default off), which only a dualstack network
// load balancer may turn on.
func ipv6SourceNATPrefix(f *query.Form, lb state.LoadBalancer) (bool, error) {
	v, err := enumParam(f, "EnablePrefixForIpv6SourceNat", "off", "on", "off")
	if err != nil || v == "off" {
		return false, err
	}
	if lb.Type != state.LBTypeNetwork || lb.IPAddressType != "dualstack" {
		return false, query.Errorf("InvalidConfigurationRequest", "A prefix for IPv6 source NAT is only supported by dualstack network load balancers")
	}
	return true, nil
}

// subnetMappings reads Subnets.member.N or SubnetMappings.member.N (not both); addresses are for network load
// balancers only.
func subnetMappings(f *query.Form, lbType string) ([]state.SubnetMapping, error) {
	subnets, mappings := f.Strings("Subnets.member"), f.Members("SubnetMappings.member")
	if len(subnets) > 0 && len(mappings) > 0 {
		return nil, validationf("You can specify subnets or subnet mappings, not both")
	}
	var out []state.SubnetMapping
	for _, id := range subnets {
		out = append(out, state.SubnetMapping{SubnetID: id})
	}
	for _, p := range mappings {
		m := state.SubnetMapping{SubnetID: f.Get(p + ".SubnetId"), AllocationID: f.Get(p + ".AllocationId"), PrivateIPv4Address: f.Get(p + ".PrivateIPv4Address")}
		if m.SubnetID == "" {
			return nil, validationf("A subnet ID must be specified for each subnet mapping")
		}
		if (m.AllocationID != "" || m.PrivateIPv4Address != "") && lbType != state.LBTypeNetwork {
			return nil, query.Errorf("InvalidConfigurationRequest", "Elastic IP addresses and private IPv4 addresses are only supported by network load balancers")
		}
		out = append(out, m)
	}
	return out, nil
}

func validLBARN(arn string) error {
	if !strings.HasPrefix(arn, "arn:") || !strings.Contains(arn, ":loadbalancer/") {
		return validationf("'%s' is not a valid load balancer ARN", arn)
	}
	return nil
}

func (s *Service) deleteLoadBalancer(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	if err := validLBARN(arn); err != nil {
		return nil, err
	}
	return nil, s.st.DeleteLoadBalancer(arn)
}

// pageParams reads PageSize (1..400, default 400) and Marker.
func pageParams(f *query.Form) (start, size int, err error) {
	n, ok, err := intParam(f, "PageSize", 1, 400)
	if err != nil {
		return 0, 0, err
	}
	size = 400
	if ok {
		size = int(n)
	}
	if m := f.Get("Marker"); m != "" {
		if start, err = decodeMarker(m); err != nil {
			return 0, 0, err
		}
	}
	return start, size, nil
}

// pageOf cuts [start, start+size) out of all and returns the next marker.
func pageOf[T any](all []T, start, size int) ([]T, string) {
	start = min(start, len(all))
	end := min(start+size, len(all))
	if end < len(all) {
		return all[start:end], encodeMarker(end)
	}
	return all[start:end], ""
}

func (s *Service) describeLoadBalancers(now time.Time, f *query.Form) (any, error) {
	arns, names := f.Strings("LoadBalancerArns.member"), f.Strings("Names.member")
	if len(arns) > 0 && len(names) > 0 {
		return nil, validationf("Load balancer names and load balancer ARNs cannot be specified at the same time")
	}
	start, size, err := pageParams(f)
	if err != nil {
		return nil, err
	}
	var page []state.LoadBalancer
	res := loadBalancersResult{}
	switch {
	case len(arns) > 0:
		sel, missing := s.st.LoadBalancersByARN(arns)
		if missing >= 0 {
			if err := validLBARN(arns[missing]); err != nil {
				return nil, err
			}
			return nil, query.Errorf("LoadBalancerNotFound", "Load balancers '[%s]' not found", arns[missing])
		}
		page, res.NextMarker = pageOf(sel, start, size)
	case len(names) > 0:
		sel, missing := s.st.LoadBalancersByName(names)
		if missing >= 0 {
			return nil, query.Errorf("LoadBalancerNotFound", "Load balancers '[%s]' not found", names[missing])
		}
		page, res.NextMarker = pageOf(sel, start, size)
	default: // copy only the page
		var total int
		page, total = s.st.LoadBalancerPage(start, size)
		if end := min(start, total) + len(page); end < total {
			res.NextMarker = encodeMarker(end)
		}
	}
	res.LoadBalancers = make([]xLoadBalancer, 0, len(page))
	for _, lb := range page {
		res.LoadBalancers = append(res.LoadBalancers, lbToWire(lb, now))
	}
	return res, nil
}

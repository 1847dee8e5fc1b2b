package elbv2

import (
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// ipAddressTypes are the values of IpAddressType a load balancer may have.
var ipAddressTypes = []string{"ipv4", "dualstack", "dualstack-without-public-ipv4"}

func (s *Service) setSubnets(now time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	lb, err := s.st.LoadBalancer(arn)
	if err != nil {
		return nil, err
	}
	ms, err := subnetMappings(f, lb.Type)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, validationf("You must specify subnets or subnet mappings")
	}
	prefix := lb.IPv6SourceNATPrefix
	if f.Has("EnablePrefixForIpv6SourceNat") {
		if prefix, err = ipv6SourceNATPrefix(f, lb); err != nil {
			return nil, err
		}
	}
	if lb, err = s.st.SetSubnets(arn, ms, prefix); err != nil {
		return nil, err
	}
	x := lbToWire(lb, now)
	return setSubnetsResult{AvailabilityZones: x.AvailabilityZones, IpAddressType: lb.IPAddressType,
		EnablePrefixForIpv6SourceNat: x.EnablePrefixForIpv6SourceNat}, nil
}

func (s *Service) setSecurityGroups(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	lb, err := s.st.SetSecurityGroups(arn, f.Strings("SecurityGroups.member"))
	if err != nil {
		return nil, err
	}
	return setSecurityGroupsResult{SecurityGroupIds: lb.SecurityGroupIDs}, nil
}

func (s *Service) setIPAddressType(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	if _, err := required(f, "IpAddressType"); err != nil {
		return nil, err
	}
	typ, err := enumParam(f, "IpAddressType", "", ipAddressTypes...)
	if err != nil {
		return nil, err
	}
	lb, err := s.st.SetIPAddressType(arn, typ)
	if err != nil {
		return nil, err
	}
	return setIPAddressTypeResult{IpAddressType: lb.IPAddressType}, nil
}

// certificatesRequest reads ListenerArn and Certificates.member.N.CertificateArn.
func certificatesRequest(f *query.Form) (string, []string, error) {
	arn, err := required(f, "ListenerArn")
	if err != nil {
		return "", nil, err
	}
	var out []string
	for _, p := range f.Members("Certificates.member") {
		if arn := f.Get(p + ".CertificateArn"); arn != "" {
			out = append(out, arn)
		}
	}
	if len(out) == 0 {
		return "", nil, validationf("1 validation error detected: Value null at 'certificates' failed to satisfy constraint: Member must not be null")
	}
	return arn, out, nil
}

func (s *Service) addListenerCertificates(now time.Time, f *query.Form) (any, error) {
	arn, certs, err := certificatesRequest(f)
	if err != nil {
		return nil, err
	}
	if err := s.st.KnownCertificates(now, certs); err != nil {
		return nil, err
	}
	all, err := s.st.AddListenerCertificates(arn, certs)
	if err != nil {
		return nil, err
	}
	var added []state.Certificate // AWS answers with the certificates the call named
	for _, c := range all {
		for _, want := range certs {
			if c.ARN == want {
				added = append(added, c)
			}
		}
	}
	return certificatesResult{Certificates: certificatesToWire(added)}, nil
}

func (s *Service) removeListenerCertificates(_ time.Time, f *query.Form) (any, error) {
	arn, certs, err := certificatesRequest(f)
	if err != nil {
		return nil, err
	}
	return nil, s.st.RemoveListenerCertificates(arn, certs)
}

func (s *Service) describeListenerCertificates(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "ListenerArn")
	if err != nil {
		return nil, err
	}
	start, size, err := pageParams(f)
	if err != nil {
		return nil, err
	}
	all, err := s.st.ListenerCertificates(arn)
	if err != nil {
		return nil, err
	}
	page, next := pageOf(all, start, size)
	return certificatesResult{Certificates: certificatesToWire(page), NextMarker: next}, nil
}

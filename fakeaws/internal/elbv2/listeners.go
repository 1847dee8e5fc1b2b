package elbv2

import (
	"slices"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// defaultSSLPolicy is what ELBv2 applies to a secure listener created without one.
const defaultSSLPolicy = "ELBSecurityPolicy-2016-08"

var allProtocols = []string{"HTTP", "HTTPS", "TCP", "TLS", "UDP", "TCP_UDP", "GENEVE"}

// listenerSettings copies the listener parameters present in f onto l (all of them on create).
func listenerSettings(f *query.Form, l *state.Listener, create bool) error {
	if v := f.Get("Protocol"); v != "" || create {
		if !slices.Contains(allProtocols, v) {
			return validationf("1 validation error detected: Value '%s' at 'protocol' failed to satisfy constraint: Member must satisfy enum value set: %v", v, allProtocols)
		}
		l.Protocol = v
	}
	port, ok, err := intParam(f, "Port", 1, 65535)
	if err != nil {
		return err
	}
	if ok {
		l.Port = int32(port)
	} else if create {
		return validationf("1 validation error detected: Value null at 'port' failed to satisfy constraint: Member must not be null")
	}
	if certs := f.Members("Certificates.member"); len(certs) > 0 {
		// Create and Modify name the default certificate only; AddListenerCertificates adds the others.
		if len(certs) > 1 {
			return validationf("You must provide exactly one certificate")
		}
		arn := f.Get(certs[0] + ".CertificateArn")
		if arn == "" {
			return query.Errorf("CertificateNotFound", "Certificate '' not found")
		}
		// The list keeps its entries, one of the new default's included: they are SNI certificates.
		rest := slices.DeleteFunc(slices.Clone(l.Certificates), func(c state.Certificate) bool { return c.IsDefault })
		l.Certificates = append([]state.Certificate{{ARN: arn, IsDefault: true}}, rest...)
	}
	if v := f.Get("SslPolicy"); v != "" {
		l.SSLPolicy = v
	}
	secure := l.Protocol == "HTTPS" || l.Protocol == "TLS"
	if secure && l.SSLPolicy == "" {
		l.SSLPolicy = defaultSSLPolicy
	}
	if !secure {
		l.SSLPolicy, l.Certificates = "", nil
	}
	if f.Has("AlpnPolicy.member") {
		l.AlpnPolicy = f.Strings("AlpnPolicy.member")
	}
	if err := mutualAuthentication(f, l); err != nil {
		return err
	}
	if f.Has("DefaultActions") || create {
		if l.DefaultActions, err = actions(f, "DefaultActions.member"); err != nil {
			return err
		}
	}
	return nil
}

// mutualAuthentication reads MutualAuthentication.Mode (off, passthrough or verify): only an HTTPS listener
// asks for client certificates, and verifying them needs a trust store, which fakeaws does not hold. A listener
// that stops being HTTPS stops asking.
func mutualAuthentication(f *query.Form, l *state.Listener) error {
	mode, err := enumParam(f, "MutualAuthentication.Mode", "", "off", "passthrough", "verify")
	switch {
	case err != nil:
		return err
	case mode == "verify":
		return query.Errorf("TrustStoreNotFound", "Trust store '%s' not found", f.Get("MutualAuthentication.TrustStoreArn"))
	case mode == "passthrough" && l.Protocol != "HTTPS":
		return query.Errorf("InvalidConfigurationRequest", "Mutual authentication is only supported by HTTPS listeners")
	case mode == "off":
		l.MutualAuthMode = ""
	case mode != "":
		l.MutualAuthMode = mode
	}
	if l.Protocol != "HTTPS" {
		l.MutualAuthMode = ""
	}
	return nil
}

func (s *Service) createListener(now time.Time, f *query.Form) (any, error) {
	lb, err := required(f, "LoadBalancerArn")
	if err != nil {
		return nil, err
	}
	l := state.Listener{LoadBalancerARN: lb}
	if err := listenerSettings(f, &l, true); err != nil {
		return nil, err
	}
	if err := s.knownCertificates(now, l.Certificates); err != nil {
		return nil, err
	}
	if l.Tags, err = tags(f, "Tags.member"); err != nil {
		return nil, err
	}
	created, err := s.st.CreateListener(l)
	if err != nil {
		return nil, err
	}
	return listenersResult{Listeners: []xListener{listenerToWire(created)}}, nil
}

func (s *Service) modifyListener(now time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "ListenerArn")
	if err != nil {
		return nil, err
	}
	if err := s.newDefaultCertificate(now, f); err != nil {
		return nil, err
	}
	l, err := s.st.ModifyListener(arn, func(l *state.Listener) error { return listenerSettings(f, l, false) })
	if err != nil {
		return nil, err
	}
	return listenersResult{Listeners: []xListener{listenerToWire(l)}}, nil
}

func (s *Service) deleteListener(_ time.Time, f *query.Form) (any, error) {
	arn, err := required(f, "ListenerArn")
	if err != nil {
		return nil, err
	}
	return nil, s.st.DeleteListener(arn)
}

func (s *Service) describeListeners(_ time.Time, f *query.Form) (any, error) {
	lb, arns := f.Get("LoadBalancerArn"), f.Strings("ListenerArns.member")
	if (lb == "") == (len(arns) == 0) {
		return nil, validationf("You must specify either listener ARNs or a load balancer ARN")
	}
	start, size, err := pageParams(f)
	if err != nil {
		return nil, err
	}
	var sel []state.Listener
	if lb != "" {
		if sel, err = s.st.ListenersOf(lb); err != nil {
			return nil, err
		}
	} else {
		var missing int
		if sel, missing = s.st.ListenersByARN(arns); missing >= 0 {
			return nil, query.Errorf("ListenerNotFound", "One or more listeners not found")
		}
	}
	page, next := pageOf(sel, start, size)
	res := listenersResult{NextMarker: next, Listeners: make([]xListener, 0, len(page))}
	for _, l := range page {
		res.Listeners = append(res.Listeners, listenerToWire(l))
	}
	return res, nil
}

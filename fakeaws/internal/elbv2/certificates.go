package elbv2

import (
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// knownCertificates answers CertificateNotFound, as ELBv2 does, for a certificate that is not an issued ACM
// certificate of the account and region at now. fakeaws does not serve IAM, so an IAM server certificate
// never exists.
func (s *Service) knownCertificates(now time.Time, certs []state.Certificate) error {
	arns := make([]string, len(certs))
	for i, c := range certs {
		arns[i] = c.ARN
	}
	return s.st.KnownCertificates(now, arns)
}

// newDefaultCertificate checks the default certificate a ModifyListener names, before the listener is
// changed (the listener's other certificates were checked when they were added).
func (s *Service) newDefaultCertificate(now time.Time, f *query.Form) error {
	certs := f.Members("Certificates.member")
	if len(certs) != 1 {
		return nil // listenerSettings answers a missing or second certificate
	}
	if arn := f.Get(certs[0] + ".CertificateArn"); arn != "" {
		return s.st.KnownCertificates(now, []string{arn})
	}
	return nil
}

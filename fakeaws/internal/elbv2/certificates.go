package elbv2

import (
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// knownCertificates answers CertificateNotFound, as ELBv2 does, for a certificate the account cannot hold: one
// that is not an ACM certificate of the account's region nor an IAM server certificate of the account. fakeaws
// serves neither ACM nor IAM, so any certificate ARN of the account that is well formed counts as existing.
func (s *Service) knownCertificates(certs []state.Certificate) error {
	acm := "arn:aws:acm:" + s.st.Region() + ":" + s.st.AccountID() + ":certificate/"
	iam := "arn:aws:iam::" + s.st.AccountID() + ":server-certificate/"
	for _, c := range certs {
		id, isACM := strings.CutPrefix(c.ARN, acm)
		name, isIAM := strings.CutPrefix(c.ARN, iam)
		if (isACM && id != "" && !strings.Contains(id, "/")) || (isIAM && name != "") {
			continue
		}
		return query.Errorf("CertificateNotFound", "Certificate '%s' not found", c.ARN)
	}
	return nil
}

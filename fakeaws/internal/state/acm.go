package state

import (
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
)

// ACM certificate types and statuses, as ACM names them.
const (
	CertImported          = "IMPORTED"
	CertAmazonIssued      = "AMAZON_ISSUED"
	CertPendingValidation = "PENDING_VALIDATION"
	CertIssued            = "ISSUED"
	CertExpired           = "EXPIRED"
)

// ACMCertificate is one certificate of the account's ACM. A requested certificate is PENDING_VALIDATION until
// IssueAt, then ISSUED; an imported one is ISSUED until NotAfter, then EXPIRED.
type ACMCertificate struct {
	ARN          string    `json:"arn"`
	Type         string    `json:"type"`
	DomainName   string    `json:"domainName"`
	SANs         []string  `json:"subjectAlternativeNames,omitempty"`
	KeyAlgorithm string    `json:"keyAlgorithm"`
	CreatedAt    time.Time `json:"createdAt"`
	IssueAt      time.Time `json:"issueAt"`
	NotBefore    time.Time `json:"notBefore"`
	NotAfter     time.Time `json:"notAfter"`
	Serial       string    `json:"serial,omitempty"`
	Issuer       string    `json:"issuer,omitempty"`
	Tags         []Tag     `json:"tags,omitempty"`
	// InUseBy are the load balancers whose listeners name the certificate, filled in by the reads.
	InUseBy []string `json:"inUseBy,omitempty"`
}

// Status is the certificate's status at scenario time now.
func (c *ACMCertificate) Status(now time.Time) string {
	switch {
	case now.Before(c.IssueAt):
		return CertPendingValidation
	case !c.NotAfter.IsZero() && !now.Before(c.NotAfter):
		return CertExpired
	}
	return CertIssued
}

// acmToken is a RequestCertificate idempotency token: the same token and domain within an hour name the same
// certificate.
type acmToken struct {
	arn, domain string
	at          time.Time
}

// acmIdempotency is how long ACM remembers an idempotency token.
const acmIdempotency = time.Hour

// maxACMCertificates is ACM's quota of certificates per account and region.
const maxACMCertificates = 2500

// ACMRequest is what RequestCertificate asks for.
type ACMRequest struct {
	DomainName, KeyAlgorithm, Token string
	SANs                            []string
	Tags                            []Tag
}

// RequestCertificate adds an AMAZON_ISSUED certificate, pending validation for the configured delay. A token
// seen within the hour for the same domain returns the certificate it made.
func (s *Store) RequestCertificate(now time.Time, r ACMRequest) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.acmTokens[r.Token]; ok && r.Token != "" && now.Sub(t.at) < acmIdempotency && t.domain == r.DomainName {
		if _, live := s.acmCerts[t.arn]; live {
			return t.arn, nil
		}
	}
	c := ACMCertificate{Type: CertAmazonIssued, DomainName: r.DomainName, SANs: r.SANs, KeyAlgorithm: r.KeyAlgorithm,
		CreatedAt: now, IssueAt: now.Add(s.cfg.CertificateIssueDelay), Issuer: "Amazon", Tags: r.Tags}
	c.NotBefore, c.NotAfter = c.IssueAt, c.IssueAt.Add(395*24*time.Hour) // ACM's public certificates last 395 days
	arn, err := s.addACM(c)
	if err == nil && r.Token != "" {
		s.acmTokens[r.Token] = acmToken{arn: arn, domain: r.DomainName, at: now}
	}
	return arn, err
}

// ImportCertificate adds an IMPORTED certificate (its PEMs already checked by the caller), or re-imports one
// into an existing ARN, keeping its tags, as ACM does.
func (s *Store) ImportCertificate(now time.Time, arn string, c ACMCertificate) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c.Type, c.CreatedAt, c.IssueAt = CertImported, now, now
	if arn == "" {
		return s.addACM(c)
	}
	old, err := s.acm(arn)
	if err != nil {
		return "", err
	}
	if old.Type != CertImported {
		return "", query.Errorf("ValidationException", "Certificate %s was not imported and cannot be reimported", arn)
	}
	if len(c.Tags) > 0 {
		return "", query.Errorf("ValidationException", "Tags cannot be specified when reimporting a certificate")
	}
	c.ARN, c.CreatedAt, c.Tags = arn, old.CreatedAt, old.Tags
	s.acmCerts[arn] = &c
	return arn, nil
}

// SeedCertificate adds a certificate for domain, issued at now, as an account holding it before the
// scenario starts would; arn names it (an ACM certificate ARN of the account and region) or is generated.
func (s *Store) SeedCertificate(now time.Time, arn, domain string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := ACMCertificate{ARN: arn, Type: CertAmazonIssued, DomainName: domain, KeyAlgorithm: "RSA_2048", CreatedAt: now,
		IssueAt: now, NotBefore: now, NotAfter: now.Add(395 * 24 * time.Hour), Issuer: "Amazon"}
	if arn == "" {
		return s.addACM(c)
	}
	id, ok := strings.CutPrefix(arn, s.acmPrefix())
	if !ok || id == "" || strings.Contains(id, "/") {
		return "", query.Errorf("InvalidArnException", "%s is not a certificate ARN of account %s in %s", arn, s.cfg.AccountID, s.cfg.Region)
	}
	if old, dup := s.acmCerts[arn]; dup {
		if old.DomainName == domain { // a standalone server keeps what an earlier run seeded
			return arn, nil
		}
		return "", query.Errorf("ResourceInUseException", "certificate %s already exists for %s", arn, old.DomainName)
	}
	return s.addACM(c)
}

func (s *Store) acmPrefix() string {
	return "arn:aws:acm:" + s.cfg.Region + ":" + s.cfg.AccountID + ":certificate/"
}

func (s *Store) addACM(c ACMCertificate) (string, error) {
	if len(s.acmCerts) >= maxACMCertificates {
		return "", query.Errorf("LimitExceededException", "the maximum number of certificates (%d) has been reached", maxACMCertificates)
	}
	if c.Serial == "" {
		c.Serial = strings.TrimSuffix(strings.Repeat(s.newID("", 2)+":", 16), ":")
	}
	if c.ARN == "" {
		c.ARN = s.acmPrefix() + s.newID("", 8) + "-" + s.newID("", 4) + "-" + s.newID("", 4) + "-" + s.newID("", 4) + "-" + s.newID("", 12)
	}
	s.acmCerts[c.ARN] = &c
	return c.ARN, nil
}

func (s *Store) acm(arn string) (*ACMCertificate, error) {
	c, ok := s.acmCerts[arn]
	if !ok {
		return nil, query.Errorf("ResourceNotFoundException", "Could not find certificate %s.", arn)
	}
	return c, nil
}

// certificateUsers are the load balancers whose listeners name a certificate, sorted.
func (s *Store) certificateUsers(arn string) []string {
	var out []string
	for _, l := range s.listeners {
		if slices.ContainsFunc(l.Certificates, func(c Certificate) bool { return c.ARN == arn }) && !slices.Contains(out, l.LoadBalancerARN) {
			out = append(out, l.LoadBalancerARN)
		}
	}
	sort.Strings(out)
	return out
}

func (s *Store) acmCopy(c *ACMCertificate) ACMCertificate {
	out := cloneACM(c)
	out.InUseBy = s.certificateUsers(c.ARN)
	return out
}

// DescribeCertificate returns one certificate.
func (s *Store) DescribeCertificate(arn string) (ACMCertificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.acm(arn)
	if err != nil {
		return ACMCertificate{}, err
	}
	return s.acmCopy(c), nil
}

// ACMCertificates returns every certificate, ordered by ARN (ListCertificates pages over this order).
func (s *Store) ACMCertificates() []ACMCertificate {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ACMCertificate, 0, len(s.acmCerts))
	for _, arn := range sortedKeys(s.acmCerts) {
		out = append(out, s.acmCopy(s.acmCerts[arn]))
	}
	return out
}

// DeleteCertificate removes a certificate no listener uses.
func (s *Store) DeleteCertificate(arn string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.acm(arn); err != nil {
		return err
	}
	if users := s.certificateUsers(arn); len(users) > 0 {
		return query.Errorf("ResourceInUseException", "Certificate %s in use by %s", arn, strings.Join(users, ", "))
	}
	delete(s.acmCerts, arn)
	return nil
}

// AddCertificateTags adds or replaces tags on a certificate, within the account's tag quota.
func (s *Store) AddCertificateTags(arn string, tags []Tag) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, err := s.acm(arn)
	if err != nil {
		return err
	}
	merged := cloneTags(c.Tags)
	for _, t := range tags {
		if i := slices.IndexFunc(merged, func(o Tag) bool { return o.Key == t.Key }); i >= 0 {
			merged[i] = t
		} else {
			merged = append(merged, t)
		}
	}
	if len(merged) > s.cfg.MaxTags {
		return query.Errorf("TooManyTagsException", "the TagSet exceeds %d tags", s.cfg.MaxTags)
	}
	c.Tags = merged
	return nil
}

// KnownCertificates refuses, with ELBv2's CertificateNotFound, a listener certificate that is not an issued
// certificate of the account's ACM at now.
func (s *Store) KnownCertificates(now time.Time, arns []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, arn := range arns {
		if c, ok := s.acmCerts[arn]; !ok || c.Status(now) != CertIssued {
			return query.Errorf("CertificateNotFound", "Certificate '%s' not found", arn)
		}
	}
	return nil
}

func cloneACM(c *ACMCertificate) ACMCertificate {
	out := *c
	out.SANs, out.Tags = slices.Clone(c.SANs), cloneTags(c.Tags)
	return out
}

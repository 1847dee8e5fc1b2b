package acm

import (
	"strconv"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// epoch is a timestamp as AWS JSON 1.1 writes it: seconds since the Unix epoch, a number.
type epoch time.Time

func (e epoch) MarshalJSON() ([]byte, error) {
	t := time.Time(e)
	return []byte(strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', -1, 64)), nil
}

func at(t time.Time) *epoch {
	if t.IsZero() {
		return nil
	}
	e := epoch(t)
	return &e
}

type tag struct {
	Key   string  `json:"Key"`
	Value *string `json:"Value,omitempty"`
}

func tagsToWire(in []state.Tag) []tag {
	out := make([]tag, 0, len(in))
	for _, t := range in {
		v := t.Value
		out = append(out, tag{Key: t.Key, Value: &v})
	}
	return out
}

type resourceRecord struct {
	Name  string `json:"Name"`
	Type  string `json:"Type"`
	Value string `json:"Value"`
}

type domainValidation struct {
	DomainName       string          `json:"DomainName"`
	ValidationDomain string          `json:"ValidationDomain"`
	ValidationStatus string          `json:"ValidationStatus"`
	ValidationMethod string          `json:"ValidationMethod"`
	ResourceRecord   *resourceRecord `json:"ResourceRecord,omitempty"`
}

type certificateDetail struct {
	CertificateArn          string             `json:"CertificateArn"`
	DomainName              string             `json:"DomainName"`
	SubjectAlternativeNames []string           `json:"SubjectAlternativeNames,omitempty"`
	Status                  string             `json:"Status"`
	Type                    string             `json:"Type"`
	KeyAlgorithm            string             `json:"KeyAlgorithm"`
	InUseBy                 []string           `json:"InUseBy"`
	CreatedAt               *epoch             `json:"CreatedAt,omitempty"`
	IssuedAt                *epoch             `json:"IssuedAt,omitempty"`
	ImportedAt              *epoch             `json:"ImportedAt,omitempty"`
	NotBefore               *epoch             `json:"NotBefore,omitempty"`
	NotAfter                *epoch             `json:"NotAfter,omitempty"`
	Serial                  string             `json:"Serial,omitempty"`
	Issuer                  string             `json:"Issuer,omitempty"`
	Subject                 string             `json:"Subject"`
	RenewalEligibility      string             `json:"RenewalEligibility"`
	DomainValidationOptions []domainValidation `json:"DomainValidationOptions,omitempty"`
}

type certificateSummary struct {
	CertificateArn                   string   `json:"CertificateArn"`
	DomainName                       string   `json:"DomainName"`
	SubjectAlternativeNameSummaries  []string `json:"SubjectAlternativeNameSummaries,omitempty"`
	HasAdditionalSubjectAlternatives bool     `json:"HasAdditionalSubjectAlternativeNames"`
	Status                           string   `json:"Status"`
	Type                             string   `json:"Type"`
	KeyAlgorithm                     string   `json:"KeyAlgorithm"`
	InUse                            bool     `json:"InUse"`
	CreatedAt                        *epoch   `json:"CreatedAt,omitempty"`
	IssuedAt                         *epoch   `json:"IssuedAt,omitempty"`
	ImportedAt                       *epoch   `json:"ImportedAt,omitempty"`
	NotBefore                        *epoch   `json:"NotBefore,omitempty"`
	NotAfter                         *epoch   `json:"NotAfter,omitempty"`
}

// validationRecord is the CNAME ACM asks a DNS-validated domain to publish, derived from the certificate so
// that every read names the same record.
func validationRecord(c state.ACMCertificate, domain string) *resourceRecord {
	id := c.ARN[len(c.ARN)-12:]
	return &resourceRecord{Name: "_" + id + "." + domain + ".", Type: "CNAME", Value: "_" + id + ".acm-validations.aws."}
}

func detail(c state.ACMCertificate, now time.Time) certificateDetail {
	status := c.Status(now)
	d := certificateDetail{CertificateArn: c.ARN, DomainName: c.DomainName, SubjectAlternativeNames: c.SANs, Status: status,
		Type: c.Type, KeyAlgorithm: c.KeyAlgorithm, InUseBy: c.InUseBy, CreatedAt: at(c.CreatedAt), Serial: c.Serial,
		Issuer: c.Issuer, Subject: "CN=" + c.DomainName, RenewalEligibility: "INELIGIBLE"}
	if d.InUseBy == nil {
		d.InUseBy = []string{}
	}
	if c.Type == state.CertImported {
		d.ImportedAt = at(c.CreatedAt)
	} else {
		d.RenewalEligibility = "ELIGIBLE"
		validation := "SUCCESS"
		if status == state.CertPendingValidation {
			validation = "PENDING_VALIDATION"
		} else {
			d.IssuedAt = at(c.IssueAt)
		}
		names := c.SANs // they include the domain, as ACM lists it
		if len(names) == 0 {
			names = []string{c.DomainName}
		}
		for _, name := range names {
			d.DomainValidationOptions = append(d.DomainValidationOptions, domainValidation{DomainName: name, ValidationDomain: name,
				ValidationStatus: validation, ValidationMethod: "DNS", ResourceRecord: validationRecord(c, name)})
		}
	}
	if status != state.CertPendingValidation {
		d.NotBefore, d.NotAfter = at(c.NotBefore), at(c.NotAfter)
	}
	return d
}

func summary(c state.ACMCertificate, now time.Time) certificateSummary {
	d := detail(c, now)
	s := certificateSummary{CertificateArn: d.CertificateArn, DomainName: d.DomainName, SubjectAlternativeNameSummaries: c.SANs,
		Status: d.Status, Type: d.Type, KeyAlgorithm: d.KeyAlgorithm, InUse: len(c.InUseBy) > 0, CreatedAt: d.CreatedAt,
		IssuedAt: d.IssuedAt, ImportedAt: d.ImportedAt, NotBefore: d.NotBefore, NotAfter: d.NotAfter}
	if len(s.SubjectAlternativeNameSummaries) > 100 { // ListCertificates names at most 100 alternative names
		s.SubjectAlternativeNameSummaries, s.HasAdditionalSubjectAlternatives = s.SubjectAlternativeNameSummaries[:100], true
	}
	return s
}

package acm

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

type importRequest struct {
	CertificateArn   string `json:"CertificateArn"`
	Certificate      []byte `json:"Certificate"` // base64 on the wire, as the JSON protocol sends blobs
	PrivateKey       []byte `json:"PrivateKey"`
	CertificateChain []byte `json:"CertificateChain"`
	Tags             []tag  `json:"Tags"`
}

type arnResult struct {
	CertificateArn string `json:"CertificateArn"`
}

// importCertificate checks the PEMs as ACM does (one X.509 certificate, a private key matching it, a chain of
// certificates if any) and stores the certificate, or replaces the one CertificateArn names.
func (s *Service) importCertificate(now time.Time, body []byte) (any, error) {
	var in importRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if in.CertificateArn != "" {
		if err := s.certificateARN(in.CertificateArn); err != nil {
			return nil, err
		}
	}
	if len(in.Certificate) == 0 || len(in.PrivateKey) == 0 {
		return nil, validation("1 validation error detected: Value null at 'certificate' or 'privateKey' failed to satisfy constraint: Member must not be null")
	}
	c, err := parseImport(in)
	if err != nil {
		return nil, err
	}
	if c.Tags, err = tagsFrom(in.Tags); err != nil {
		return nil, err
	}
	arn, err := s.st.ImportCertificate(now, in.CertificateArn, c)
	if err != nil {
		return nil, err
	}
	return arnResult{arn}, nil
}

func parseImport(in importRequest) (state.ACMCertificate, error) {
	block, rest := pem.Decode(in.Certificate)
	if block == nil || block.Type != "CERTIFICATE" {
		return state.ACMCertificate{}, validation("Unable to parse certificate. Please ensure the certificate is in PEM format.")
	}
	if next, _ := pem.Decode(rest); next != nil {
		return state.ACMCertificate{}, validation("The certificate field contains more than one certificate. You can specify only one certificate in this field.")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return state.ACMCertificate{}, validation("Unable to parse certificate: %v", err)
	}
	if _, err := tls.X509KeyPair(in.Certificate, in.PrivateKey); err != nil {
		return state.ACMCertificate{}, validation("The private key is not supported or does not match the certificate: %v", err)
	}
	for chain := in.CertificateChain; len(strings.TrimSpace(string(chain))) > 0; {
		var b *pem.Block
		if b, chain = pem.Decode(chain); b == nil || b.Type != "CERTIFICATE" {
			return state.ACMCertificate{}, validation("Unable to parse certificate chain. Please ensure the chain is in PEM format.")
		}
		if _, err := x509.ParseCertificate(b.Bytes); err != nil {
			return state.ACMCertificate{}, validation("Unable to parse certificate chain: %v", err)
		}
	}
	alg, err := keyAlgorithm(cert)
	if err != nil {
		return state.ACMCertificate{}, err
	}
	domain := cert.Subject.CommonName
	if domain == "" && len(cert.DNSNames) > 0 {
		domain = cert.DNSNames[0]
	}
	return state.ACMCertificate{DomainName: domain, SANs: cert.DNSNames, KeyAlgorithm: alg, NotBefore: cert.NotBefore,
		NotAfter: cert.NotAfter, Serial: serial(cert), Issuer: cert.Issuer.CommonName}, nil
}

// keyAlgorithm names the certificate's public key as ACM does; ACM imports RSA keys of 1024 to 4096 bits and
// EC keys on P-256, P-384 and P-521.
func keyAlgorithm(cert *x509.Certificate) (string, error) {
	switch k := cert.PublicKey.(type) {
	case *rsa.PublicKey:
		if bits := k.N.BitLen(); slices.Contains([]int{1024, 2048, 3072, 4096}, bits) {
			return fmt.Sprintf("RSA_%d", bits), nil
		}
	case *ecdsa.PublicKey:
		switch k.Curve.Params().Name {
		case "P-256":
			return "EC_prime256v1", nil
		case "P-384":
			return "EC_secp384r1", nil
		case "P-521":
			return "EC_secp521r1", nil
		}
	}
	return "", validation("The certificate's key algorithm is not supported")
}

func serial(cert *x509.Certificate) string {
	b := cert.SerialNumber.Bytes()
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02x", x)
	}
	return strings.Join(parts, ":")
}

type requestRequest struct {
	DomainName              string   `json:"DomainName"`
	ValidationMethod        string   `json:"ValidationMethod"`
	SubjectAlternativeNames []string `json:"SubjectAlternativeNames"`
	IdempotencyToken        string   `json:"IdempotencyToken"`
	KeyAlgorithm            string   `json:"KeyAlgorithm"`
	Tags                    []tag    `json:"Tags"`
}

var domainRE = regexp.MustCompile(`^(\*\.)?(([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])\.)+([A-Za-z0-9]|[A-Za-z0-9][A-Za-z0-9-]*[A-Za-z0-9])$`)

// maxDomains is ACM's default quota of domain names per certificate (the domain and its alternative names).
const maxDomains = 10

// requestCertificate asks for a public certificate: it is PENDING_VALIDATION for the server's issue delay,
// then ISSUED (DNS validation completing is not modelled; the validation record is reported).
func (s *Service) requestCertificate(now time.Time, body []byte) (any, error) {
	var in requestRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := checkRequest(&in); err != nil {
		return nil, err
	}
	tags, err := tagsFrom(in.Tags)
	if err != nil {
		return nil, err
	}
	sans := slices.Clone(in.SubjectAlternativeNames)
	if !slices.Contains(sans, in.DomainName) {
		sans = append([]string{in.DomainName}, sans...) // ACM lists the domain among the alternative names
	}
	arn, err := s.st.RequestCertificate(now, state.ACMRequest{DomainName: in.DomainName, KeyAlgorithm: in.KeyAlgorithm,
		Token: in.IdempotencyToken, SANs: sans, Tags: tags})
	if err != nil {
		return nil, err
	}
	return arnResult{arn}, nil
}

func checkRequest(in *requestRequest) error {
	if in.DomainName == "" {
		return validation("1 validation error detected: Value null at 'domainName' failed to satisfy constraint: Member must not be null")
	}
	for _, d := range append([]string{in.DomainName}, in.SubjectAlternativeNames...) {
		if len(d) > 253 || !domainRE.MatchString(d) {
			return query.Errorf("InvalidDomainValidationOptionsException", "The domain name %s is not valid", d)
		}
	}
	if len(in.SubjectAlternativeNames) > maxDomains {
		return query.Errorf("LimitExceededException", "Cannot request a certificate with more than %d domain names", maxDomains)
	}
	switch in.ValidationMethod {
	case "", "DNS", "EMAIL":
	default:
		return validation("1 validation error detected: Value '%s' at 'validationMethod' failed to satisfy constraint: Member must satisfy enum value set: [EMAIL, DNS, HTTP]", in.ValidationMethod)
	}
	switch in.KeyAlgorithm {
	case "":
		in.KeyAlgorithm = "RSA_2048"
	case "RSA_2048", "EC_prime256v1", "EC_secp384r1":
	default:
		return validation("1 validation error detected: Value '%s' at 'keyAlgorithm' failed to satisfy constraint: Member must satisfy enum value set: [RSA_2048, EC_prime256v1, EC_secp384r1]", in.KeyAlgorithm)
	}
	return checkToken(in.IdempotencyToken)
}

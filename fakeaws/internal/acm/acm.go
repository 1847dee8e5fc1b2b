// Package acm implements the AWS Certificate Manager operations fakeaws serves over ACM's AWS JSON 1.1
// protocol (X-Amz-Target "CertificateManager.<Operation>"): importing and requesting certificates, reading,
// listing, tagging and deleting them. Listeners check their certificates against the same store.
package acm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// TargetPrefix is what X-Amz-Target starts with for ACM.
const TargetPrefix = "CertificateManager."

// Handler answers one operation: the decoded JSON request body in, the response document out.
type Handler func(now time.Time, body []byte) (any, error)

// Service is the ACM API of one account and region.
type Service struct {
	st  *state.Store
	ops map[string]Handler
}

// New returns the service over st.
func New(st *state.Store) *Service {
	s := &Service{st: st}
	s.ops = map[string]Handler{
		"ImportCertificate": s.importCertificate, "RequestCertificate": s.requestCertificate,
		"DescribeCertificate": s.describeCertificate, "ListCertificates": s.listCertificates,
		"DeleteCertificate": s.deleteCertificate, "AddTagsToCertificate": s.addTags,
		"ListTagsForCertificate": s.listTags,
	}
	return s
}

// Lookup returns the handler of an operation.
func (s *Service) Lookup(op string) (Handler, bool) {
	h, ok := s.ops[op]
	return h, ok
}

// Operations lists the served operations, sorted.
func (s *Service) Operations() []string {
	out := make([]string, 0, len(s.ops))
	for k := range s.ops {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func validation(format string, args ...any) error {
	return query.Errorf("ValidationException", format, args...)
}

// decode reads a request body strictly enough that a field of the wrong type is a SerializationException,
// as the JSON protocol answers it.
func decode(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	if err := json.Unmarshal(body, v); err != nil {
		return query.Errorf("SerializationException", "Could not parse the request body: %v", err)
	}
	return nil
}

var arnRE = regexp.MustCompile(`^arn:aws[\w-]*:acm:[\w-]+:\d{12}:certificate/[\w-]+$`)

// certificateARN checks a CertificateArn parameter: required, and shaped like an ACM certificate ARN.
func (s *Service) certificateARN(arn string) error {
	if arn == "" {
		return validation("1 validation error detected: Value null at 'certificateArn' failed to satisfy constraint: Member must not be null")
	}
	if !arnRE.MatchString(arn) || len(arn) > 2048 {
		return query.Errorf("InvalidArnException", "%s is not a valid ARN", arn)
	}
	return nil
}

type arnRequest struct {
	CertificateArn string `json:"CertificateArn"`
}

func (s *Service) describeCertificate(now time.Time, body []byte) (any, error) {
	var in arnRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := s.certificateARN(in.CertificateArn); err != nil {
		return nil, err
	}
	c, err := s.st.DescribeCertificate(in.CertificateArn)
	if err != nil {
		return nil, err
	}
	return struct {
		Certificate certificateDetail `json:"Certificate"`
	}{detail(c, now)}, nil
}

func (s *Service) deleteCertificate(_ time.Time, body []byte) (any, error) {
	var in arnRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := s.certificateARN(in.CertificateArn); err != nil {
		return nil, err
	}
	return struct{}{}, s.st.DeleteCertificate(in.CertificateArn)
}

type listRequest struct {
	CertificateStatuses []string `json:"CertificateStatuses"`
	Includes            *struct {
		KeyTypes []string `json:"keyTypes"`
	} `json:"Includes"`
	MaxItems  *int   `json:"MaxItems"`
	NextToken string `json:"NextToken"`
}

var statuses = []string{"PENDING_VALIDATION", "ISSUED", "INACTIVE", "EXPIRED", "VALIDATION_TIMED_OUT", "REVOKED", "FAILED"}

// listCertificates pages over the certificates in ARN order. Without Includes.keyTypes ACM lists only
// RSA_2048 certificates; without CertificateStatuses, every status.
func (s *Service) listCertificates(now time.Time, body []byte) (any, error) {
	var in listRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	for _, st := range in.CertificateStatuses {
		if !slices.Contains(statuses, st) {
			return nil, validation("1 validation error detected: Value '[%s]' at 'certificateStatuses' failed to satisfy constraint: Member must satisfy constraint: [Member must satisfy enum value set: [%s]]", st, strings.Join(statuses, ", "))
		}
	}
	limit := 1000
	if in.MaxItems != nil {
		if *in.MaxItems < 1 || *in.MaxItems > 1000 {
			return nil, validation("1 validation error detected: Value '%d' at 'maxItems' failed to satisfy constraint: Member must have value between 1 and 1000", *in.MaxItems)
		}
		limit = *in.MaxItems
	}
	after, err := pageStart(in.NextToken)
	if err != nil {
		return nil, err
	}
	keyTypes := []string{"RSA_2048"}
	if in.Includes != nil && len(in.Includes.KeyTypes) > 0 {
		keyTypes = in.Includes.KeyTypes
	}
	out := struct {
		CertificateSummaryList []certificateSummary `json:"CertificateSummaryList"`
		NextToken              string               `json:"NextToken,omitempty"`
	}{CertificateSummaryList: []certificateSummary{}}
	for _, c := range s.st.ACMCertificates() {
		if c.ARN <= after || !slices.Contains(keyTypes, c.KeyAlgorithm) ||
			(len(in.CertificateStatuses) > 0 && !slices.Contains(in.CertificateStatuses, c.Status(now))) {
			continue
		}
		if len(out.CertificateSummaryList) == limit {
			out.NextToken = pageToken(out.CertificateSummaryList[limit-1].CertificateArn)
			break
		}
		out.CertificateSummaryList = append(out.CertificateSummaryList, summary(c, now))
	}
	return out, nil
}

// A page token names the last ARN of the previous page, so that a page is stable while certificates come
// and go.
func pageToken(lastARN string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("acm1:" + lastARN))
}

func pageStart(token string) (string, error) {
	if token == "" {
		return "", nil
	}
	b, err := base64.RawURLEncoding.DecodeString(token)
	last, ok := strings.CutPrefix(string(b), "acm1:")
	if err != nil || !ok {
		return "", query.Errorf("InvalidArgsException", "The NextToken %s is not valid", token)
	}
	return last, nil
}

type tagsRequest struct {
	CertificateArn string `json:"CertificateArn"`
	Tags           []tag  `json:"Tags"`
}

var tagKeyRE = regexp.MustCompile(`^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$`)

// tagsFrom checks tags as ACM does: key 1–128 characters and not "aws:"-prefixed, value at most 256.
func tagsFrom(in []tag) ([]state.Tag, error) {
	out := make([]state.Tag, 0, len(in))
	for _, t := range in {
		v := ""
		if t.Value != nil {
			v = *t.Value
		}
		switch {
		case t.Key == "" || len(t.Key) > 128 || !tagKeyRE.MatchString(t.Key) || len(v) > 256 || !tagKeyRE.MatchString(v):
			return nil, query.Errorf("InvalidTagException", "The tag %s is not valid", t.Key)
		case strings.HasPrefix(strings.ToLower(t.Key), "aws:"):
			return nil, query.Errorf("InvalidTagException", "Tag keys beginning with 'aws:' are reserved: %s", t.Key)
		}
		out = append(out, state.Tag{Key: t.Key, Value: v})
	}
	return out, nil
}

func (s *Service) addTags(_ time.Time, body []byte) (any, error) {
	var in tagsRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := s.certificateARN(in.CertificateArn); err != nil {
		return nil, err
	}
	if len(in.Tags) == 0 || len(in.Tags) > 50 {
		return nil, validation("1 validation error detected: Value at 'tags' failed to satisfy constraint: Member must have length between 1 and 50")
	}
	tags, err := tagsFrom(in.Tags)
	if err != nil {
		return nil, err
	}
	return struct{}{}, s.st.AddCertificateTags(in.CertificateArn, tags)
}

func (s *Service) listTags(_ time.Time, body []byte) (any, error) {
	var in arnRequest
	if err := decode(body, &in); err != nil {
		return nil, err
	}
	if err := s.certificateARN(in.CertificateArn); err != nil {
		return nil, err
	}
	c, err := s.st.DescribeCertificate(in.CertificateArn)
	if err != nil {
		return nil, err
	}
	return struct {
		Tags []tag `json:"Tags"`
	}{tagsToWire(c.Tags)}, nil
}

// maxIdempotencyToken is the longest IdempotencyToken ACM accepts.
const maxIdempotencyToken = 32

var tokenRE = regexp.MustCompile(`^\w+$`)

func checkToken(tok string) error {
	if tok != "" && (len(tok) > maxIdempotencyToken || !tokenRE.MatchString(tok)) {
		return validation("1 validation error detected: Value '%s' at 'idempotencyToken' failed to satisfy constraint: Member must satisfy regular expression pattern: \\w+ and have length at most %s", tok, strconv.Itoa(maxIdempotencyToken))
	}
	return nil
}

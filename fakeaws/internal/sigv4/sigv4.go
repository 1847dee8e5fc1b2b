// Package sigv4 verifies AWS Signature Version 4 Authorization headers against one set of credentials by
// rebuilding the canonical request from the headers the client says it signed.
package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/utils/clock"

	"github.com/restartsim/restartsim/fakeaws/internal/clip"
)

const (
	algorithm = "AWS4-HMAC-SHA256"
	// TimeFormat is the ISO 8601 basic format of X-Amz-Date.
	TimeFormat = "20060102T150405Z"
	// maxPresignExpires is the largest X-Amz-Expires AWS accepts (seven days).
	maxPresignExpires = 7 * 24 * time.Hour
)

// Failure says why a request is not authenticated. Kind selects the service-specific error code.
type Failure struct {
	Kind    Kind
	Message string
	// Presigned is set when the request was signed in the query string (X-Amz-Signature) rather than in the
	// Authorization header; S3 words some errors differently for it.
	Presigned bool
}

// Kind classifies an authentication failure.
type Kind int

const (
	// Missing: no Authorization header.
	Missing Kind = iota + 1
	// Malformed: the header is not a parseable SigV4 header.
	Malformed
	// UnknownKey: the access key ID is not the configured one.
	UnknownKey
	// BadSignature: the signature does not match (wrong secret, tampered request).
	BadSignature
	// Expired: the signature is valid but X-Amz-Date is outside the allowed clock skew of the verifier's wall
	// clock, or a presigned request is past X-Amz-Date + X-Amz-Expires.
	Expired
)

func (f *Failure) Error() string { return f.Message }

// Scope is the parsed credential scope of a signed request.
type Scope struct {
	AccessKeyID string
	Date        string
	Region      string
	Service     string
}

type parsed struct {
	Scope
	signedHeaders []string
	signature     string
	amzDate       string
	presigned     bool
	expires       time.Duration // presigned only
}

// ParseScope returns the credential scope of r (from the Authorization header or, for a presigned request, the
// X-Amz-Credential query parameter) without verifying it; ok is false when it is absent or malformed.
func ParseScope(r *http.Request) (Scope, bool) {
	p, f := parseRequest(r)
	if f != nil {
		return Scope{}, false
	}
	return p.Scope, true
}

// parseRequest reads the signature from the Authorization header or, when there is none, from the query string.
func parseRequest(r *http.Request) (parsed, *Failure) {
	h := r.Header.Get("Authorization")
	if h == "" && isPresigned(r) {
		return parseQuery(r)
	}
	p, f := parse(h)
	if f != nil {
		return p, f
	}
	p.amzDate = r.Header.Get("X-Amz-Date")
	if p.amzDate == "" {
		return parsed{}, &Failure{Kind: Malformed, Message: "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header."}
	}
	return p, nil
}

func isPresigned(r *http.Request) bool {
	q := r.URL.Query()
	return q.Has("X-Amz-Algorithm") || q.Has("X-Amz-Credential") || q.Has("X-Amz-Signature")
}

func parseQuery(r *http.Request) (parsed, *Failure) {
	q := r.URL.Query()
	malformed := func(msg string) (parsed, *Failure) {
		return parsed{}, &Failure{Kind: Malformed, Message: msg, Presigned: true}
	}
	alg, cred, sh, sig, date := q.Get("X-Amz-Algorithm"), q.Get("X-Amz-Credential"), q.Get("X-Amz-SignedHeaders"), q.Get("X-Amz-Signature"), q.Get("X-Amz-Date")
	if alg == "" || cred == "" || sh == "" || sig == "" || date == "" {
		return malformed("AWS query-string parameters must include 'X-Amz-Algorithm', 'X-Amz-Credential', 'X-Amz-Signature', 'X-Amz-SignedHeaders', 'X-Amz-Date'. Re-examine the query-string parameters.")
	}
	if alg != algorithm {
		return malformed("X-Amz-Algorithm only supports \"" + algorithm + "\"")
	}
	p := parsed{signedHeaders: strings.Split(sh, ";"), signature: sig, amzDate: date, presigned: true}
	var f *Failure
	if p.Scope, f = parseCredential(cred); f != nil {
		f.Presigned = true
		return parsed{}, f
	}
	secs, err := strconv.ParseInt(q.Get("X-Amz-Expires"), 10, 64)
	if err != nil || secs < 1 || time.Duration(secs)*time.Second > maxPresignExpires {
		return malformed("X-Amz-Expires must be an integer from 1 to 604800 (seven days)")
	}
	p.expires = time.Duration(secs) * time.Second
	if f := requireHost(p.signedHeaders); f != nil {
		f.Presigned = true
		return parsed{}, f
	}
	return p, nil
}

func parseCredential(v string) (Scope, *Failure) {
	f := strings.Split(v, "/")
	if len(f) != 5 || f[4] != "aws4_request" || f[0] == "" {
		return Scope{}, &Failure{Kind: Malformed, Message: "Credential should be scoped to a valid region, a valid service and aws4_request"}
	}
	return Scope{AccessKeyID: f[0], Date: f[1], Region: f[2], Service: f[3]}, nil
}

// requireHost enforces AWS's rule that the host header is always signed.
func requireHost(signed []string) *Failure {
	for _, h := range signed {
		if h == "host" {
			return nil
		}
	}
	return &Failure{Kind: Malformed, Message: "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization."}
}

func parse(h string) (parsed, *Failure) {
	if h == "" {
		return parsed{}, &Failure{Kind: Missing, Message: "Request is missing Authentication Token"}
	}
	rest, ok := strings.CutPrefix(h, algorithm+" ")
	if !ok {
		return parsed{}, &Failure{Kind: Malformed, Message: "Authorization header requires the AWS4-HMAC-SHA256 algorithm"}
	}
	var p parsed
	var haveCred, haveSH, haveSig bool
	for _, part := range strings.Split(rest, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			continue
		}
		switch k {
		case "Credential":
			var f *Failure
			if p.Scope, f = parseCredential(v); f != nil {
				return parsed{}, f
			}
			haveCred = true
		case "SignedHeaders":
			p.signedHeaders = strings.Split(v, ";")
			haveSH = v != ""
		case "Signature":
			p.signature = v
			haveSig = v != ""
		}
	}
	if !haveCred || !haveSH || !haveSig {
		return parsed{}, &Failure{Kind: Malformed, Message: "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters"}
	}
	if f := requireHost(p.signedHeaders); f != nil {
		return parsed{}, f
	}
	return p, nil
}

// Verifier checks SigV4 signatures against one set of credentials and, when Clock is set, the age of the
// signature against a wall clock.
type Verifier struct {
	AccessKeyID, SecretAccessKey string
	// Clock is the wall clock the signing time is compared with. Nil disables the check.
	Clock clock.PassiveClock
	// MaxSkew is how far X-Amz-Date may be from Clock.Now() (AWS: 5 minutes). Negative disables the check.
	MaxSkew time.Duration
}

// Precheck checks what r's headers (or query string) alone decide: the signature's format, the access key,
// the signing date against the credential scope and the clock, and that the signature is 64 hex digits. A
// request that fails it cannot pass Verify, so it is refused before its body is read. (Verify checks the
// clock after the signature, so a request both late and wrongly signed is refused as late here, as wrongly
// signed there.)
func (v Verifier) Precheck(r *http.Request) (Scope, *Failure) {
	p, signedAt, f := v.checkHeaders(r)
	if f != nil {
		return p.Scope, f
	}
	fail := func(k Kind, msg string) (Scope, *Failure) {
		return p.Scope, &Failure{Kind: k, Message: msg, Presigned: p.presigned}
	}
	if !isSignatureHex(p.signature) {
		return fail(BadSignature, signatureMismatch)
	}
	if msg := v.checkTime(signedAt, p); msg != "" {
		return fail(Expired, msg)
	}
	return p.Scope, nil
}

// checkHeaders parses r's signature and checks its access key and signing date.
func (v Verifier) checkHeaders(r *http.Request) (parsed, time.Time, *Failure) {
	p, f := parseRequest(r)
	if f != nil {
		return parsed{}, time.Time{}, f
	}
	fail := func(k Kind, msg string) (parsed, time.Time, *Failure) {
		return p, time.Time{}, &Failure{Kind: k, Message: msg, Presigned: p.presigned}
	}
	if subtle.ConstantTimeCompare([]byte(p.AccessKeyID), []byte(v.AccessKeyID)) != 1 {
		return fail(UnknownKey, "The security token included in the request is invalid.")
	}
	signedAt, err := time.Parse(TimeFormat, p.amzDate)
	if err != nil {
		return fail(Malformed, "Date must be in ISO-8601 'basic format'. Got '"+clip.String(p.amzDate)+"'. See http://en.wikipedia.org/wiki/ISO_8601")
	}
	if p.amzDate[:8] != p.Date {
		return fail(Malformed, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '"+clip.String(p.Date)+"' != '"+p.amzDate[:8]+"', from '"+p.amzDate+"'.")
	}
	return p, signedAt, nil
}

const signatureMismatch = "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."

// isSignatureHex reports whether sig has the shape of a signature: 64 lower-case hex digits.
func isSignatureHex(sig string) bool {
	if len(sig) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(sig); i++ {
		if c := sig[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// Verify checks r's SigV4 signature (Authorization header, or query string for a presigned request), then its
// age. payloadHash is the hex SHA-256 of the body, or the value of X-Amz-Content-Sha256 for services that send
// it (S3). s3Style selects S3's single-encoded canonical URI.
func (v Verifier) Verify(r *http.Request, payloadHash string, s3Style bool) (Scope, *Failure) {
	p, signedAt, f := v.checkHeaders(r)
	if f != nil {
		return p.Scope, f
	}
	fail := func(k Kind, msg string) (Scope, *Failure) {
		return p.Scope, &Failure{Kind: k, Message: msg, Presigned: p.presigned}
	}
	canonical := canonicalRequest(r, p.signedHeaders, payloadHash, s3Style, p.presigned)
	scope := p.Date + "/" + p.Region + "/" + p.Service + "/aws4_request"
	sum := sha256.Sum256([]byte(canonical))
	stringToSign := algorithm + "\n" + p.amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := hmacSHA256([]byte("AWS4"+v.SecretAccessKey), p.Date)
	key = hmacSHA256(key, p.Region)
	key = hmacSHA256(key, p.Service)
	key = hmacSHA256(key, "aws4_request")
	want := hex.EncodeToString(hmacSHA256(key, stringToSign))
	if subtle.ConstantTimeCompare([]byte(want), []byte(p.signature)) != 1 {
		return fail(BadSignature, signatureMismatch)
	}
	if msg := v.checkTime(signedAt, p); msg != "" {
		return fail(Expired, msg)
	}
	return p.Scope, nil
}

// checkTime returns AWS's message when the signing time is outside the skew window (or a presigned request has
// expired), "" when it is fine.
func (v Verifier) checkTime(signedAt time.Time, p parsed) string {
	if v.Clock == nil || v.MaxSkew < 0 {
		return ""
	}
	now := v.Clock.Now().UTC()
	ts := func(t time.Time) string { return t.UTC().Format(TimeFormat) }
	skew := fmt.Sprintf("%g min.", v.MaxSkew.Minutes())
	switch {
	case signedAt.After(now.Add(v.MaxSkew)):
		return fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + %s)", p.amzDate, ts(now.Add(v.MaxSkew)), ts(now), skew)
	case p.presigned && now.After(signedAt.Add(p.expires)):
		return fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - %d sec.)", p.amzDate, ts(now.Add(-p.expires)), ts(now), int64(p.expires/time.Second))
	case !p.presigned && signedAt.Before(now.Add(-v.MaxSkew)):
		return fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - %s)", p.amzDate, ts(now.Add(-v.MaxSkew)), ts(now), skew)
	}
	return ""
}

// PayloadHash returns the hex SHA-256 of body.
func PayloadHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:])
}

func hmacSHA256(key []byte, data string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(data))
	return h.Sum(nil)
}

func canonicalRequest(r *http.Request, signed []string, payloadHash string, s3Style, presigned bool) string {
	var b strings.Builder
	b.WriteString(r.Method)
	b.WriteByte('\n')
	path := r.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	if !s3Style {
		path = escapePath(path)
	}
	b.WriteString(path)
	b.WriteByte('\n')
	q := r.URL.Query()
	if presigned {
		q.Del("X-Amz-Signature")
	}
	for k := range q {
		sort.Strings(q[k])
	}
	b.WriteString(strings.ReplaceAll(q.Encode(), "+", "%20"))
	b.WriteByte('\n')
	headers := append([]string(nil), signed...)
	sort.Strings(headers)
	for _, h := range headers {
		b.WriteString(h)
		b.WriteByte(':')
		b.WriteString(headerValue(r, h))
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	b.WriteString(strings.Join(headers, ";"))
	b.WriteByte('\n')
	b.WriteString(payloadHash)
	return b.String()
}

func headerValue(r *http.Request, name string) string {
	switch name {
	case "host":
		return r.Host
	case "content-length":
		if r.ContentLength >= 0 {
			return strconv.FormatInt(r.ContentLength, 10)
		}
	}
	vals := r.Header.Values(name)
	for i, v := range vals {
		vals[i] = strings.Join(strings.Fields(v), " ")
	}
	return strings.Join(vals, ",")
}

// escapePath re-escapes an already escaped path the way the SDK does for non-S3 services.
func escapePath(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c == '/' || c == '-' || c == '_' || c == '.' || c == '~' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') {
			b.WriteByte(c)
			continue
		}
		b.WriteString("%" + strings.ToUpper(hex.EncodeToString([]byte{c})))
	}
	return b.String()
}

// Package sigv4 verifies AWS Signature Version 4 Authorization headers against one set of credentials by
// rebuilding the canonical request from the headers the client says it signed.
package sigv4

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

const algorithm = "AWS4-HMAC-SHA256"

// Failure says why a request is not authenticated. Kind selects the service-specific error code.
type Failure struct {
	Kind    Kind
	Message string
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
}

// ParseScope returns the credential scope of r without verifying it; ok is false when the header is absent or
// malformed.
func ParseScope(r *http.Request) (Scope, bool) {
	p, f := parse(r.Header.Get("Authorization"))
	if f != nil {
		return Scope{}, false
	}
	return p.Scope, true
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
			f := strings.Split(v, "/")
			if len(f) != 5 || f[4] != "aws4_request" || f[0] == "" {
				return parsed{}, &Failure{Kind: Malformed, Message: "Credential should be scoped to a valid region, a valid service and aws4_request"}
			}
			p.Scope = Scope{AccessKeyID: f[0], Date: f[1], Region: f[2], Service: f[3]}
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
	return p, nil
}

// Verify checks r's SigV4 signature. payloadHash is the hex SHA-256 of the body, or the value of
// X-Amz-Content-Sha256 for services that send it (S3). pathEscaped selects S3's single-encoded canonical URI.
func Verify(r *http.Request, accessKeyID, secret, payloadHash string, s3Style bool) (Scope, *Failure) {
	p, f := parse(r.Header.Get("Authorization"))
	if f != nil {
		return Scope{}, f
	}
	if subtle.ConstantTimeCompare([]byte(p.AccessKeyID), []byte(accessKeyID)) != 1 {
		return p.Scope, &Failure{Kind: UnknownKey, Message: "The security token included in the request is invalid."}
	}
	amzDate := r.Header.Get("X-Amz-Date")
	if len(amzDate) < 8 || amzDate[:8] != p.Date {
		return p.Scope, &Failure{Kind: Malformed, Message: "Date in Credential scope does not match X-Amz-Date"}
	}
	canonical := canonicalRequest(r, p.signedHeaders, payloadHash, s3Style)
	scope := p.Date + "/" + p.Region + "/" + p.Service + "/aws4_request"
	sum := sha256.Sum256([]byte(canonical))
	stringToSign := algorithm + "\n" + amzDate + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := hmacSHA256([]byte("AWS4"+secret), p.Date)
	key = hmacSHA256(key, p.Region)
	key = hmacSHA256(key, p.Service)
	key = hmacSHA256(key, "aws4_request")
	want := hex.EncodeToString(hmacSHA256(key, stringToSign))
	if subtle.ConstantTimeCompare([]byte(want), []byte(p.signature)) != 1 {
		return p.Scope, &Failure{Kind: BadSignature, Message: "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."}
	}
	return p.Scope, nil
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

func canonicalRequest(r *http.Request, signed []string, payloadHash string, s3Style bool) string {
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

package query

import (
	"bytes"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/restartsim/restartsim/fakeaws/internal/clip"
)

// Limits bound what ParseForm accepts, so that a hostile request costs time linear in its size.
type Limits struct {
	// MaxParams is the most key=value pairs (body and URL query together). Default 20,000: a full
	// RegisterTargets batch or security-group rule set needs a few thousand.
	MaxParams int
	// MaxKeyBytes is the longest decoded key. Default 512.
	MaxKeyBytes int
	// MaxDepth is the most dot-separated segments in a key (IpPermissions.1.IpRanges.1.Description has 5).
	// Default 10.
	MaxDepth int
}

// DefaultLimits are the limits ParseForm applies to zero fields.
var DefaultLimits = Limits{MaxParams: 20000, MaxKeyBytes: 512, MaxDepth: 10}

func (l Limits) withDefaults() Limits {
	if l.MaxParams <= 0 {
		l.MaxParams = DefaultLimits.MaxParams
	}
	if l.MaxKeyBytes <= 0 {
		l.MaxKeyBytes = DefaultLimits.MaxKeyBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultLimits.MaxDepth
	}
	return l
}

// FormErrorKind says why a form was refused; the service picks the error code for it.
type FormErrorKind int

const (
	// FormMalformed: not valid form encoding.
	FormMalformed FormErrorKind = iota + 1
	// FormTooBig: over one of the Limits.
	FormTooBig
	// FormInvalid: well-formed but not a valid request (invalid UTF-8, a list with a gap).
	FormInvalid
)

// FormError is why ParseForm or CheckLists refused a request.
type FormError struct {
	Kind    FormErrorKind
	Message string
}

func (e *FormError) Error() string { return e.Message }

func formErrorf(kind FormErrorKind, format string, args ...any) *FormError {
	return &FormError{Kind: kind, Message: fmt.Sprintf(format, clip.Args(args)...)}
}

// ParseForm decodes a form-encoded body and merges the URL query parameters (body wins). It refuses, in time
// linear in the input, forms over lim and keys or values that are not valid UTF-8 (AWS's Query services
// decode parameters as UTF-8 and reject malformed sequences).
func ParseForm(body []byte, rawQuery string, lim Limits) (*Form, error) {
	lim = lim.withDefaults()
	v := url.Values{}
	count := 0
	if err := parsePairs(string(body), lim, &count, func(k, val string) { v[k] = append(v[k], val) }); err != nil {
		return nil, err
	}
	q := url.Values{}
	if err := parsePairs(rawQuery, lim, &count, func(k, val string) { q[k] = append(q[k], val) }); err != nil {
		return nil, err
	}
	for k, vs := range q {
		if _, ok := v[k]; !ok {
			v[k] = vs
		}
	}
	return &Form{values: v}, nil
}

// parsePairs splits s at '&' and hands each decoded pair to add, counting pairs against lim.MaxParams.
func parsePairs(s string, lim Limits, count *int, add func(k, v string)) error {
	for s != "" {
		var pair string
		pair, s, _ = strings.Cut(s, "&")
		if pair == "" {
			continue
		}
		if strings.Contains(pair, ";") {
			return formErrorf(FormMalformed, "invalid semicolon separator in query")
		}
		if *count++; *count > lim.MaxParams {
			return formErrorf(FormTooBig, "The request has more than %d parameters", lim.MaxParams)
		}
		rawKey, rawVal, _ := strings.Cut(pair, "=")
		if len(rawKey) > 3*lim.MaxKeyBytes { // cheap bound before decoding: each decoded byte is at most "%XX"
			return formErrorf(FormTooBig, "A parameter name is longer than %d bytes", lim.MaxKeyBytes)
		}
		k, err := url.QueryUnescape(rawKey)
		if err != nil {
			return formErrorf(FormMalformed, "The query string is malformed")
		}
		val, err := url.QueryUnescape(rawVal)
		if err != nil {
			return formErrorf(FormMalformed, "The query string is malformed")
		}
		switch {
		case len(k) > lim.MaxKeyBytes:
			return formErrorf(FormTooBig, "A parameter name is longer than %d bytes", lim.MaxKeyBytes)
		case strings.Count(k, ".") >= lim.MaxDepth:
			return formErrorf(FormTooBig, "A parameter name has more than %d segments", lim.MaxDepth)
		case !utf8.ValidString(k):
			return formErrorf(FormInvalid, "A parameter name is not valid UTF-8")
		case !utf8.ValidString(val):
			return formErrorf(FormInvalid, "The value of parameter '%s' is not valid UTF-8", k)
		}
		add(k, val)
	}
	return nil
}

// Peek returns the first value of key in a form body or URL query without decoding the rest (body first, as
// ParseForm merges them), so that a request can be routed before it is authenticated. It costs one pass and
// copies nothing but the value.
func Peek(body []byte, rawQuery, key string) string {
	for _, s := range [][]byte{body, []byte(rawQuery)} {
		for len(s) > 0 {
			var pair []byte
			pair, s, _ = bytes.Cut(s, []byte("&"))
			k, v, _ := bytes.Cut(pair, []byte("="))
			if len(k) > 3*len(key) {
				continue
			}
			if dk, err := url.QueryUnescape(string(k)); err == nil && dk == key {
				dv, _ := url.QueryUnescape(string(v))
				return dv
			}
		}
	}
	return ""
}

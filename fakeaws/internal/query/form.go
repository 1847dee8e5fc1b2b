package query

import (
	"net/url"
	"strconv"
	"strings"
)

// Form is a decoded Query request: the flattened key/value pairs of the form body (and URL query).
type Form struct {
	values url.Values
	// index is built on first use (Has, Members, CheckLists): request handling never pays for it before the
	// request is authenticated, and the parse limits bound it.
	index *formIndex
}

// Get returns the first value of key, or "".
func (f *Form) Get(key string) string {
	vs := f.values[key]
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

// Has reports whether key, or any key below key (key.x), is present.
func (f *Form) Has(key string) bool {
	_, ok := f.indexed().prefixes[key]
	return ok
}

// Len is the number of keys.
func (f *Form) Len() int { return len(f.values) }

// Members returns the list-element prefixes prefix.1, prefix.2, ... that are present, in order. CheckLists
// rejects a request whose lists have gaps, so after it the result is the whole list.
func (f *Form) Members(prefix string) []string {
	n := f.indexed().lists[prefix].max
	out := make([]string, 0, n)
	for i := 1; i <= n; i++ {
		p := prefix + "." + strconv.Itoa(i)
		if !f.Has(p) {
			break
		}
		out = append(out, p)
	}
	return out
}

// Strings returns the values of a scalar list (prefix.1, prefix.2, ...).
func (f *Form) Strings(prefix string) []string {
	var out []string
	for _, p := range f.Members(prefix) {
		out = append(out, f.Get(p))
	}
	return out
}

// Int returns key parsed as an integer; ok is false when the key is absent; err is a ValidationError-style
// problem when present but malformed.
func (f *Form) Int(key string) (n int64, ok bool, err error) {
	s := f.Get(key)
	if !f.Has(key) {
		return 0, false, nil
	}
	n, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if perr != nil {
		return 0, true, perr
	}
	return n, true, nil
}

// Bool returns key parsed as a boolean (absent → def).
func (f *Form) Bool(key string, def bool) (bool, error) {
	if !f.Has(key) {
		return def, nil
	}
	return strconv.ParseBool(f.Get(key))
}

// Below returns every key under prefix (prefix.x...) with its first value, the prefix cut off: the
// members of a nested structure a service keeps as the request sent them.
func (f *Form) Below(prefix string) map[string]string {
	out := map[string]string{}
	for k, vs := range f.values {
		if rest, ok := strings.CutPrefix(k, prefix+"."); ok && len(vs) > 0 {
			out[rest] = vs[0]
		}
	}
	return out
}

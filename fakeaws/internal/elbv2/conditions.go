package elbv2

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/restartsim/restartsim/fakeaws/internal/query"
	"github.com/restartsim/restartsim/fakeaws/internal/state"
)

// conditionConfigs maps each condition field to the member that carries its values.
var conditionConfigs = map[string]string{
	"host-header":         "HostHeaderConfig",
	"path-pattern":        "PathPatternConfig",
	"http-header":         "HttpHeaderConfig",
	"http-request-method": "HttpRequestMethodConfig",
	"query-string":        "QueryStringConfig",
	"source-ip":           "SourceIpConfig",
}

// conditions parses Conditions.member.N. Host and path values may come in the legacy Values list or in the
// field's config, not both.
func conditions(f *query.Form) ([]state.Condition, error) {
	var out []state.Condition
	seen := map[string]bool{}
	for _, p := range f.Members("Conditions.member") {
		c, err := condition(f, p)
		if err != nil {
			return nil, err
		}
		// ELBv2 allows one condition per field, except http-header (per header) and query-string.
		key := c.Field + "/" + strings.ToLower(c.HTTPHeaderName)
		if seen[key] && c.Field != "query-string" {
			return nil, validationf("A rule can only have one '%s' condition", c.Field)
		}
		seen[key] = true
		out = append(out, c)
	}
	return out, nil
}

func condition(f *query.Form, p string) (state.Condition, error) {
	c := state.Condition{Field: f.Get(p + ".Field")}
	cfg, ok := conditionConfigs[c.Field]
	if !ok {
		return c, validationf("Condition field '%s' must be one of [%s]", c.Field, strings.Join(sortedFields(), ", "))
	}
	legacy := f.Strings(p + ".Values.member")
	cp := p + "." + cfg
	switch c.Field {
	case "host-header", "path-pattern":
		c.Values = f.Strings(cp + ".Values.member")
		if len(legacy) > 0 && len(c.Values) > 0 {
			return c, validationf("You cannot specify both 'Values' and '%s' for a '%s' condition", cfg, c.Field)
		}
		if len(c.Values) == 0 {
			c.Values = legacy
		}
	case "http-header":
		c.HTTPHeaderName, c.Values = f.Get(cp+".HttpHeaderName"), f.Strings(cp+".Values.member")
		if c.HTTPHeaderName == "" {
			return c, validationf("An HTTP header name must be specified for an 'http-header' condition")
		}
	case "query-string":
		for _, q := range f.Members(cp + ".Values.member") {
			c.QueryStrings = append(c.QueryStrings, state.QueryString{Key: f.Get(q + ".Key"), Value: f.Get(q + ".Value")})
		}
	default:
		c.Values = f.Strings(cp + ".Values.member")
	}
	if c.Field != "host-header" && c.Field != "path-pattern" && len(legacy) > 0 {
		return c, validationf("The 'Values' list is only supported for 'host-header' and 'path-pattern' conditions; use '%s'", cfg)
	}
	if len(c.Values) == 0 && len(c.QueryStrings) == 0 {
		return c, validationf("A '%s' condition must have at least one value", c.Field)
	}
	return c, checkValues(c)
}

func checkValues(c state.Condition) error {
	for _, v := range c.Values {
		switch {
		case len(v) > 128:
			return validationf("Condition value '%s' must be at most 128 characters", v)
		case c.Field == "path-pattern" && !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "*"):
			return validationf("Path pattern '%s' must start with '/' or '*'", v)
		case c.Field == "source-ip":
			if _, err := netip.ParsePrefix(v); err != nil {
				return validationf("Source IP '%s' must be a CIDR block", v)
			}
		}
	}
	return nil
}

func sortedFields() []string {
	out := make([]string, 0, len(conditionConfigs))
	for k := range conditionConfigs {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

package throttle

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/time/rate"
)

// Rule throttles the operations of one service that match a pattern.
type Rule struct {
	OperationPtn *regexp.Regexp
	Rate         rate.Limit
	Burst        int
}

// Config maps an SDK service ID (such as "Elastic Load Balancing v2" or "EC2") to its rules.
type Config map[string][]Rule

var entryPattern = regexp.MustCompile(`^(?P<serviceID>[^:=]+):(?P<operationPtn>[^=]+)=(?P<rate>[^:]+):(?P<burst>[^:]+)$`)

// Parse reads the flag format; an empty string is an empty Config.
func Parse(s string) (Config, error) {
	cfg := Config{}
	if strings.TrimSpace(s) == "" {
		return cfg, nil
	}
	for _, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		m := entryPattern.FindStringSubmatch(entry)
		if m == nil {
			return nil, fmt.Errorf("invalid throttle config %q: want serviceID:operationRegex=rate:burst", entry)
		}
		ptn, err := regexp.Compile(m[2])
		if err != nil {
			return nil, fmt.Errorf("invalid operation regex in %q: %w", entry, err)
		}
		r, err := strconv.ParseFloat(m[3], 64)
		if err != nil || r <= 0 {
			return nil, fmt.Errorf("invalid rate in %q: want a positive number", entry)
		}
		burst, err := strconv.Atoi(m[4])
		if err != nil || burst <= 0 {
			return nil, fmt.Errorf("invalid burst in %q: want a positive integer", entry)
		}
		cfg[m[1]] = append(cfg[m[1]], Rule{OperationPtn: ptn, Rate: rate.Limit(r), Burst: burst})
	}
	return cfg, nil
}

// Merge returns c with each service in override replacing that service's rules.
func (c Config) Merge(override Config) Config {
	out := Config{}
	for k, v := range c {
		out[k] = v
	}
	for k, v := range override {
		out[k] = v
	}
	return out
}

// String renders the flag format, services sorted.
func (c Config) String() string {
	ids := make([]string, 0, len(c))
	for id := range c {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var parts []string
	for _, id := range ids {
		for _, r := range c[id] {
			parts = append(parts, fmt.Sprintf("%s:%s=%s:%d", id, r.OperationPtn, strconv.FormatFloat(float64(r.Rate), 'f', -1, 64), r.Burst))
		}
	}
	return strings.Join(parts, ",")
}

// ParseWithDefaults parses s and merges it over Defaults().
func ParseWithDefaults(s string) (Config, error) {
	override, err := Parse(s)
	if err != nil {
		return nil, err
	}
	return Defaults().Merge(override), nil
}

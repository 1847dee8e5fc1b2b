package throttlespec

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Bounds of a rule: a rate below MinRate would make a call wait longer than any run (1e-300 is hours in
// the millions), and a rate or burst above the maxima is "unlimited" spelled as a number.
const (
	MinRate  = 0.001 // tokens per second: one call per 1000 s
	MaxRate  = 1e6
	MaxBurst = 1_000_000
	// maxEntryBytes bounds one entry, so a config cannot hide a pathological regular expression.
	maxEntryBytes = 1024
)

// Rule throttles the operations of one service that match a pattern.
type Rule struct {
	OperationPtn *regexp.Regexp
	Rate         float64 // tokens per second, MinRate..MaxRate
	Burst        int     // 1..MaxBurst
}

// Config maps an SDK service ID (such as "Elastic Load Balancing v2" or "EC2") to its rules, in order.
type Config map[string][]Rule

// Parse reads the flag format; an empty string is an empty Config. Entries are separated by commas; an
// empty entry (a trailing comma) is an error.
func Parse(s string) (Config, error) {
	cfg := Config{}
	if strings.TrimSpace(s) == "" {
		return cfg, nil
	}
	for _, entry := range strings.Split(s, ",") {
		svc, r, err := parseEntry(strings.TrimSpace(entry))
		if err != nil {
			return nil, err
		}
		cfg[svc] = append(cfg[svc], r)
	}
	return cfg, nil
}

func parseEntry(entry string) (string, Rule, error) {
	if len(entry) > maxEntryBytes {
		return "", Rule{}, fmt.Errorf("throttle entry of %d bytes: at most %d", len(entry), maxEntryBytes)
	}
	head, limits, ok := strings.Cut(entry, "=")
	svc, ptn, ok2 := strings.Cut(head, ":")
	rateS, burstS, ok3 := strings.Cut(limits, ":")
	if !ok || !ok2 || !ok3 || svc == "" || ptn == "" || rateS == "" || strings.ContainsAny(limits, "=") || strings.Contains(burstS, ":") {
		return "", Rule{}, fmt.Errorf("invalid throttle entry %q: want serviceID:operationRegex=rate:burst", entry)
	}
	re, err := regexp.Compile(ptn)
	if err != nil {
		return "", Rule{}, fmt.Errorf("invalid operation regex in %q: %w", entry, err)
	}
	r, err := strconv.ParseFloat(rateS, 64)
	if err != nil || !rateInBounds(r) {
		return "", Rule{}, fmt.Errorf("invalid rate in %q: want a number from %g to %g per second", entry, MinRate, MaxRate)
	}
	burst, err := strconv.Atoi(burstS)
	if err != nil || burst < 1 || burst > MaxBurst {
		return "", Rule{}, fmt.Errorf("invalid burst in %q: want an integer from 1 to %d", entry, MaxBurst)
	}
	return svc, Rule{OperationPtn: re, Rate: r, Burst: burst}, nil
}

func rateInBounds(r float64) bool { return !math.IsNaN(r) && r >= MinRate && r <= MaxRate }

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

// Scale returns c with every rate multiplied by f (bursts unchanged), for a client that must keep pace
// with token buckets whose time runs f times faster.
func (c Config) Scale(f float64) Config {
	out := Config{}
	for k, rules := range c {
		scaled := make([]Rule, len(rules))
		for i, r := range rules {
			r.Rate *= f
			scaled[i] = r
		}
		out[k] = scaled
	}
	return out
}

// Scaled is spec merged over the defaults with every rate multiplied by scale: the config a controller
// whose clock runs scale times faster is given. It fails when spec does not parse or a scaled rate leaves
// the bounds, so that a check before a run refuses exactly what the controller would refuse later.
func Scaled(spec string, scale float64) (Config, error) {
	cfg, err := ParseWithDefaults(spec)
	if err != nil {
		return nil, err
	}
	cfg = cfg.Scale(scale)
	for svc, rules := range cfg {
		for _, r := range rules {
			if !rateInBounds(r.Rate) {
				return nil, fmt.Errorf("rate of %s:%s scaled by %g is %g per second, outside %g to %g", svc, r.OperationPtn, scale, r.Rate, MinRate, MaxRate)
			}
		}
	}
	return cfg, nil
}

// RateFor is the rate of the first rule of service whose pattern matches operation, and whether one does.
func (c Config) RateFor(service, operation string) (float64, bool) {
	for _, r := range c[service] {
		if r.OperationPtn.MatchString(operation) {
			return r.Rate, true
		}
	}
	return 0, false
}

// String renders the flag format, services sorted; Parse(c.String()) is c.
func (c Config) String() string {
	ids := make([]string, 0, len(c))
	for id := range c {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var parts []string
	for _, id := range ids {
		for _, r := range c[id] {
			parts = append(parts, fmt.Sprintf("%s:%s=%s:%d", id, r.OperationPtn, strconv.FormatFloat(r.Rate, 'f', -1, 64), r.Burst))
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
